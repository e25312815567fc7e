// Endpoint pod: answers on every given TCP and UDP port with one JSON line saying who it is (its name and
// the endpoint address ip:port it serves) and which source address it saw (masquerade shows up there).
// Run inside the pod's network namespace: `ip netns exec NS node listener.mjs '<json>'`.
//   json: { name, address, tcp: [ports], udp: [ports], lifetimeMs }
// address '*' (the "outside world" namespace, which owns whole prefixes): TCP answers name the address the
// connection came to; UDP ones say '*' (Node cannot tell a datagram's destination address).
// Prints "ready" once every socket is bound; exits by itself after lifetimeMs (a bound on a forgotten
// process) or when its stdin closes (the test process went away).
import dgram from 'node:dgram';
import net from 'node:net';

const spec = JSON.parse(process.argv[2]);
const answer = (port, remote, local) => JSON.stringify({ name: spec.name, endpoint: `${spec.address === '*' && local ? local : spec.address}:${port}`, seen: remote }) + '\n';

const pending = [];
for (const port of spec.tcp ?? []) {
  const server = net.createServer((socket) => {
    socket.on('error', () => {});
    socket.end(answer(port, socket.remoteAddress, socket.localAddress));
  });
  pending.push(new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host: '0.0.0.0', backlog: 1024 }, resolve);
  }));
}
for (const port of spec.udp ?? []) {
  const socket = dgram.createSocket('udp4');
  socket.on('message', (_msg, rinfo) => socket.send(answer(port, rinfo.address), rinfo.port, rinfo.address));
  pending.push(new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, '0.0.0.0', resolve);
  }));
}

Promise.all(pending).then(
  () => process.stdout.write('ready\n'),
  (err) => {
    process.stderr.write(`listener ${spec.name}: ${err.message}\n`);
    process.exit(2);
  },
);
setTimeout(() => process.exit(0), spec.lifetimeMs ?? 600_000).unref();
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
