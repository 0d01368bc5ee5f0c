// The section of VS Code's settings (`deviceDoctor.*`) that the language client
// synchronizes and the language server pulls with workspace/configuration: the name
// both ends of that connection must agree on, so it is defined once, here.
export const SETTINGS_SECTION = 'deviceDoctor';
