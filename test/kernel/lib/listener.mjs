// Endpoint pod: answers on every given TCP and UDP port with one JSON line saying who it is (its name and
// the endpoint address ip:port it serves) and which source address it saw (masquerade shows up there).
// Run inside the pod's network namespace: `ip netns exec NS node listener.mjs '<json>'`.
//   json: { name, address, tcp: [ports], udp: [ports], lifetimeMs, bind?: [addresses] }
// address '*' (the "outside world" namespace, which owns whole prefixes): TCP answers name the address the
// connection came to; UDP ones say '*' (Node cannot tell a datagram's destination address).
// Optional `bind: [addresses]`: one socket per address and port instead of a wildcard one, so that a UDP
// answer leaves from the address the datagram came to (a wildcard socket's answer takes the source address
// routing picks, which a client connected to another of the namespace's addresses ignores); answers then
// name that address.
// Prints "ready" once every socket is bound; exits by itself after lifetimeMs (a bound on a forgotten
// process) or when its stdin closes (the test process went away).
import dgram from 'node:dgram';
import net from 'node:net';

const spec = JSON.parse(process.argv[2]);
const answer = (port, remote, local) => JSON.stringify({ name: spec.name, endpoint: `${spec.address === '*' && local ? local : spec.address}:${port}`, seen: remote }) + '\n';

const pending = [];
const hosts = spec.bind ?? ['0.0.0.0'];
for (const port of spec.tcp ?? []) {
  for (const host of hosts) {
    const server = net.createServer((socket) => {
      socket.on('error', () => {});
      socket.end(answer(port, socket.remoteAddress, socket.localAddress));
    });
    pending.push(
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen({ port, host, backlog: 1024 }, resolve);
      }),
    );
  }
}
for (const port of spec.udp ?? []) {
  for (const host of hosts) {
    const socket = dgram.createSocket('udp4');
    const local = host === '0.0.0.0' ? undefined : host;
    socket.on('message', (_msg, rinfo) => socket.send(answer(port, rinfo.address, local), rinfo.port, rinfo.address));
    pending.push(
      new Promise((resolve, reject) => {
        socket.once('error', reject);
        socket.bind(port, host, resolve);
      }),
    );
  }
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
