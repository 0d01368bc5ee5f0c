// DD007 reports one finding per training loop, on its first read-back, naming the others
// (issue 28 item 4: a GAN step got five hints, though after the first sync the rest wait for little).
import { strict as assert } from 'assert';
import { initPythonParser } from '../../src/core/analysis';
import { coreFindings } from './helpers/analysis';

const GAN = `import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
G = torch.nn.Linear(16, 32).to(device)
D = torch.nn.Linear(32, 1).to(device)
opt_g = torch.optim.Adam(G.parameters())
opt_d = torch.optim.Adam(D.parameters())
for real in loader:
    real = real.to(device)
    fake = G(torch.randn(real.size(0), 16, device=device))
    d_real = D(real).mean()
    d_fake = D(fake.detach()).mean()
    d_loss = d_fake - d_real
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    g_loss = -D(fake).mean()
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
    stats = [d_loss.item(), g_loss.item(), d_real.item(), d_fake.item()]
    log(float(g_loss))
for real in loader:
    loss = D(real.to(device)).mean()
    loss.backward()
    opt_d.step()
    print(loss.item())
`;

describe('DD007: one finding per training loop', () => {
  before(async () => {
    await initPythonParser();
  });

  it('five read-backs in one GAN step give one finding, on the first, naming the other four with their lines', () => {
    const found = coreFindings(GAN).filter((f) => f.code === 'DD007');
    assert.deepEqual(found.map((f) => f.range.start.line + 1), [20, 26], found.map((f) => f.message).join('\n'));
    const [gan] = found;
    assert.equal(GAN.split('\n')[19].slice(gan.range.start.character, gan.range.end.character), 'item()');
    assert.match(gan.message, /^With a GPU: `d_loss\.item\(\)` waits for the GPU in every step; read it every N steps\. It reads `d_loss`/);
    assert.match(gan.message, /reads back 4 more after it: `g_loss\.item\(\)` \(line 20\), `d_real\.item\(\)` \(line 20\), `d_fake\.item\(\)` \(line 20\), `float\(g_loss\)` \(line 21\)/);
    const others = gan.related.filter((r) => /also reads back/.test(r.message)).map((r) => r.range.start.line + 1);
    assert.deepEqual(others, [20, 20, 20, 21]);
  });

  it('a loop with one read-back names no others', () => {
    const second = coreFindings(GAN).filter((f) => f.code === 'DD007')[1];
    assert.doesNotMatch(second.message, /more after it/);
  });
});
