// `npm run try`'s first screen: the walkthrough, and beside it the sample its first button opens (a copy, with the
// CodeLens the try settings turn on). Runs each time a browser opens the workbench.
const vscode = require('vscode');

exports.activate = async () => {
  await vscode.commands.executeCommand('workbench.action.openWalkthrough', 'dataplane-explorer.dataplane-explorer#readDataplane', false);
  await vscode.commands.executeCommand('dataplane.openSamples', 'iptables-nft');
};

exports.deactivate = () => {};
