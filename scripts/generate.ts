// `node dist/generate.js`: writes realistic kube-proxy dumps made by the project's own generators, in any of the
// three modes (`--help` prints the usage; the argument handling is tools/generate/cli.ts):
//   --samples DIR                        the bundled sample node snapshots (one small set of Services per mode)
//   [--mode iptables|nftables|ipvs] --services N --endpoints M [--seed S] [--family ipv4|ipv6] [--style STYLE]
//   [--no-comments] [--node-ip ADDRESS]… [--out DIR]
//                                        a random node of any size: iptables and nftables mode write their one
//                                        dump to standard output, or DIR/node.iptables / DIR/node.nft with --out;
//                                        ipvs mode writes DIR/node.ipvsadm, node.ipset and node.iptables (--out
//                                        required). Bad usage: a message on standard error, exit status 2.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { generateCli } from '../tools/generate/cli';

const result = generateCli(process.argv.slice(2));
if (result.kind === 'help') {
  process.stdout.write(`${result.text}\n`);
} else if (result.kind === 'error') {
  process.stderr.write(`generate: ${result.message}\nRun \`node dist/generate.js --help\` for the usage.\n`);
  process.exitCode = 2;
} else if (result.outDir === undefined) {
  process.stdout.write(Object.values(result.files)[0] ?? '');
} else {
  for (const [path, text] of Object.entries(result.files)) {
    const file = join(result.outDir, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    process.stderr.write(`wrote ${file}\n`);
  }
  for (const note of result.notes) process.stderr.write(`${note}\n`);
}
