// Client: for each request, opens one TCP connection or one UDP exchange per attempt to to:port, each from
// its own source (address, port), and reports what became of each attempt.
// Runs inside the client's network namespace as a small server, so that Node starts once per namespace and
// not once per request: `ip netns exec NS node client.mjs`, prints "ready", then reads one JSON request per
// line on stdin and writes one JSON line { ms, results } per request on stdout, in order. Exits when stdin
// closes, or after lifetimeMs (argv[2]) at the latest.
//   request: { protocol: 'tcp'|'udp', to, port, attempts: [{ src?, sport, wave? }], concurrency, timeoutMs, deadlineMs,
//              answerGraceMs? (TCP: once connected, wait this long for the answer instead of the rest of timeoutMs) }
// Outcome per attempt: 'answer' (with the listener's name, endpoint and the source address it saw),
// 'refused' (ECONNREFUSED: a TCP RST or an ICMP port unreachable, i.e. REJECT), 'timeout' (nothing came
// back: DROP; `connected: true` when the TCP handshake had completed but no answer came), or 'error' with
// the errno code (EPERM: a datagram dropped by this namespace's own OUTPUT chain, and no ICMP error
// followed). Bounded: at most 5000 attempts per request, each timeoutMs (or answerGraceMs), the whole
// request deadlineMs.
import dgram from 'node:dgram';
import net from 'node:net';
import { createInterface } from 'node:readline';

function parseAnswer(text) {
  const line = text.split('\n')[0];
  try {
    return JSON.parse(line);
  } catch {
    return { bad: line };
  }
}

function tcpAttempt(spec, a) {
  const timeoutMs = spec.timeoutMs ?? 1000;
  return new Promise((resolve) => {
    let done = false;
    let data = '';
    let local;
    const finish = (r) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ sport: a.sport, src: local ?? a.src ?? null, ...r });
    };
    const opts = { host: spec.to, port: spec.port, localPort: a.sport };
    if (a.src) opts.localAddress = a.src;
    const socket = net.connect(opts);
    let timer = setTimeout(() => finish({ outcome: 'timeout' }), timeoutMs);
    socket.on('connect', () => {
      local = socket.localAddress;
      // The handshake is the kernel's; the answer needs the listener process, which a loaded machine may not
      // run for a while: once connected, wait answerGraceMs (if given) for it. Nothing dropped this attempt.
      if (spec.answerGraceMs && !done) {
        clearTimeout(timer);
        timer = setTimeout(() => finish({ outcome: 'timeout', connected: true }), spec.answerGraceMs);
      }
    });
    socket.setEncoding('utf8');
    socket.on('data', (d) => {
      data += d;
      if (data.includes('\n')) finish({ outcome: 'answer', ...parseAnswer(data) });
    });
    socket.on('end', () => finish(data ? { outcome: 'answer', ...parseAnswer(data) } : { outcome: 'error', code: 'EOF' }));
    socket.on('error', (e) => finish(e.code === 'ECONNREFUSED' ? { outcome: 'refused' } : { outcome: 'error', code: e.code ?? e.message }));
  });
}

function udpAttempt(spec, a) {
  const timeoutMs = spec.timeoutMs ?? 1000;
  return new Promise((resolve) => {
    let done = false;
    let local;
    const socket = dgram.createSocket('udp4');
    const finish = (r) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      try {
        socket.close();
      } catch {}
      resolve({ sport: a.sport, src: local ?? a.src ?? null, ...r });
    };
    let eperm = false;
    const timer = setTimeout(() => finish(eperm ? { outcome: 'error', code: 'EPERM' } : { outcome: 'timeout' }), timeoutMs);
    socket.on('error', (e) => finish(e.code === 'ECONNREFUSED' ? { outcome: 'refused' } : { outcome: 'error', code: e.code ?? e.message }));
    socket.on('message', (msg) => finish({ outcome: 'answer', ...parseAnswer(String(msg)) }));
    socket.bind(a.sport, a.src ?? '0.0.0.0', () => {
      socket.connect(spec.port, spec.to, (err) => {
        if (err) return finish({ outcome: 'error', code: err.code ?? err.message });
        try {
          local = socket.address().address;
        } catch {}
        socket.send('hello\n', (e) => {
          // EPERM: the sender's own OUTPUT chain dropped the datagram, by DROP or by REJECT; a REJECT's ICMP
          // error follows at once (ECONNREFUSED below), so wait for it until the timeout.
          if (e && e.code === 'EPERM') eperm = true;
          else if (e) finish(e.code === 'ECONNREFUSED' ? { outcome: 'refused' } : { outcome: 'error', code: e.code ?? e.message });
        });
      });
    });
  });
}

async function handle(spec) {
  const attempts = spec.attempts.slice(0, 5000);
  const started = Date.now();
  const deadline = started + (spec.deadlineMs ?? 120_000);
  // Attempts run in waves (attempt.wave, default 0): every attempt of one wave has ended before the next
  // wave starts (session affinity: a client's first connection must have been recorded before it returns).
  const results = new Array(attempts.length);
  const waves = [...new Set(attempts.map((a) => a.wave ?? 0))].sort((x, y) => x - y);
  for (const wave of waves) {
    const queue = attempts.map((a, i) => i).filter((i) => (attempts[i].wave ?? 0) === wave);
    let next = 0;
    const worker = async () => {
      while (next < queue.length) {
        const i = queue[next++];
        if (Date.now() > deadline) {
          results[i] = { sport: attempts[i].sport, src: attempts[i].src ?? null, outcome: 'error', code: 'DEADLINE' };
          continue;
        }
        results[i] = await (spec.protocol === 'udp' ? udpAttempt(spec, attempts[i]) : tcpAttempt(spec, attempts[i]));
      }
    };
    const workers = [];
    for (let k = 0; k < Math.max(1, Math.min(spec.concurrency ?? 16, 256)); k++) workers.push(worker());
    await Promise.all(workers);
  }
  return { ms: Date.now() - started, results };
}

const lines = createInterface({ input: process.stdin });
let chain = Promise.resolve();
lines.on('line', (line) => {
  if (!line.trim()) return;
  chain = chain.then(async () => {
    let out;
    try {
      out = await handle(JSON.parse(line));
    } catch (e) {
      out = { error: String(e?.stack ?? e) };
    }
    process.stdout.write(JSON.stringify(out) + '\n');
  });
});
lines.on('close', () => chain.then(() => process.exit(0)));
setTimeout(() => process.exit(0), Number(process.argv[2] ?? 900_000)).unref();
process.stdout.write('ready\n');
