// A long, realistic training script built from numbered blocks (model class, data, a
// trainer function called with concrete arguments, an evaluation under no_grad), each
// with one planted DD003, so a test can check that the analysis reached the end.

function block(i: number): string {
  return `

class Net${i}(nn.Module):
    def __init__(self, hidden=${16 + (i % 5) * 8}):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(10, hidden),
            nn.ReLU(),
            nn.Dropout(0.1),
            nn.Linear(hidden, 2),
        )

    def forward(self, x):
        return self.layers(x)


def train_${i}(model, loader, optimizer, device, epochs=1):
    criterion = nn.CrossEntropyLoss()
    model.train()
    for epoch in range(epochs):
        for step, (xb, yb) in enumerate(loader):
            xb, yb = xb.to(device), yb.to(device)
            optimizer.zero_grad()
            loss = criterion(model(xb), yb)
            loss.backward()
            optimizer.step()
            if step % 50 == 0:
                print(f"block ${i} epoch {epoch} step {step} loss {loss.item():.4f}")
    return model


@torch.no_grad()
def evaluate_${i}(model, loader, device):
    model.eval()
    outputs = []
    for xb, _ in loader:
        logits = model(xb.to(device))
        outputs.append(logits.argmax(dim=1).cpu())
    return torch.cat(outputs)


model_${i} = Net${i}().to(device)
optimizer_${i} = torch.optim.Adam(model_${i}.parameters(), lr=1e-3)
train_${i}(model_${i}, train_loader, optimizer_${i}, device)
predictions_${i} = evaluate_${i}(model_${i}, val_loader, device)
scores_${i} = model_${i}(torch.randn(4, 10, device=device)).detach()
planted_${i} = scores_${i}.numpy()  # planted DD003
`;
}

const HEADER = `# Generated: a very long training script.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
dataset = TensorDataset(torch.randn(512, 10), torch.randint(0, 2, (512,)))
train_loader = DataLoader(dataset, batch_size=32, shuffle=True)
val_loader = DataLoader(dataset, batch_size=64)
`;

/** At least `minLines` lines; returns the text and the 0-based lines of the planted mistakes. */
export function generateTrainingScript(minLines: number): { text: string; planted: number[] } {
  const parts = [HEADER];
  let lines = HEADER.split('\n').length - 1;
  const planted: number[] = [];
  for (let i = 0; lines < minLines; i++) {
    const text = block(i);
    const offset = text.split('\n').findIndex((l) => l.includes('# planted DD003'));
    planted.push(lines + offset);
    parts.push(text);
    lines += text.split('\n').length - 1;
  }
  return { text: parts.join(''), planted };
}
