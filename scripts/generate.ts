// `node dist/generate.js`: writes realistic kube-proxy dumps made by the project's own generator.
//   --samples DIR                        the bundled sample node snapshots (one small set of Services per mode)
//   --services N --endpoints M [--seed S] [--style restore-input|iptables-nft-save|iptables-legacy-save]
//   [--no-comments] [--family ipv4|ipv6]  a random dump of any size on standard output
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateIptablesDump, randomServices, type GenOptions } from '../src/core/kube/generate/iptables';
import { SAMPLE_SERVICES, sampleFiles } from '../src/core/kube/generate/samples';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const samplesDir = arg('--samples');
if (samplesDir) {
  for (const [path, text] of Object.entries(sampleFiles())) {
    mkdirSync(join(samplesDir, path, '..'), { recursive: true });
    writeFileSync(join(samplesDir, path), text);
    process.stderr.write(`wrote ${join(samplesDir, path)}\n`);
  }
  process.stderr.write(`${SAMPLE_SERVICES.length} service ports per snapshot\n`);
} else {
  const services = Number(arg('--services') ?? 100);
  const endpoints = Number(arg('--endpoints') ?? 10);
  const seed = Number(arg('--seed') ?? 1);
  const style = (arg('--style') ?? 'iptables-nft-save') as GenOptions['style'];
  const family = (arg('--family') ?? 'ipv4') as GenOptions['family'];
  process.stdout.write(generateIptablesDump({ services: randomServices(services, endpoints, seed), style, family, comments: !process.argv.includes('--no-comments'), nodeRules: style !== 'restore-input' }));
}
