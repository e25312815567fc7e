// Client: opens one TCP connection or one UDP exchange per attempt to to:port, each from its own source
// (address, port), and prints a JSON array with what became of each attempt.
// Run inside the client's network namespace: `ip netns exec NS node client.mjs '<json>'`.
//   json: { protocol: 'tcp'|'udp', to, port, attempts: [{ src?, sport, wave? }], concurrency, timeoutMs, deadlineMs }
// Outcome per attempt: 'answer' (with the listener's name, endpoint and the source address it saw),
// 'refused' (ECONNREFUSED: a TCP RST or an ICMP port unreachable, i.e. REJECT), 'timeout' (nothing came
// back: DROP), or 'error' with the errno code. Bounded: at most 5000 attempts, each timeoutMs, the whole run
// deadlineMs.
import dgram from 'node:dgram';
import net from 'node:net';

const spec = JSON.parse(process.argv[2]);
const attempts = spec.attempts.slice(0, 5000);
const timeoutMs = spec.timeoutMs ?? 1000;
const started = Date.now();
const deadline = started + (spec.deadlineMs ?? 120_000);

function parseAnswer(text) {
  const line = text.split('\n')[0];
  try {
    return JSON.parse(line);
  } catch {
    return { bad: line };
  }
}

function tcpAttempt(a) {
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
    const timer = setTimeout(() => finish({ outcome: 'timeout' }), timeoutMs);
    socket.on('connect', () => {
      local = socket.localAddress;
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

function udpAttempt(a) {
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
    const timer = setTimeout(() => finish({ outcome: 'timeout' }), timeoutMs);
    socket.on('error', (e) => finish(e.code === 'ECONNREFUSED' ? { outcome: 'refused' } : { outcome: 'error', code: e.code ?? e.message }));
    socket.on('message', (msg) => finish({ outcome: 'answer', ...parseAnswer(String(msg)) }));
    socket.bind(a.sport, a.src ?? '0.0.0.0', () => {
      socket.connect(spec.port, spec.to, (err) => {
        if (err) return finish({ outcome: 'error', code: err.code ?? err.message });
        try {
          local = socket.address().address;
        } catch {}
        socket.send('hello\n');
      });
    });
  });
}

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
      results[i] = await (spec.protocol === 'udp' ? udpAttempt(attempts[i]) : tcpAttempt(attempts[i]));
    }
  };
  const workers = [];
  for (let k = 0; k < Math.max(1, Math.min(spec.concurrency ?? 16, 256)); k++) workers.push(worker());
  await Promise.all(workers);
}
process.stdout.write(JSON.stringify({ ms: Date.now() - started, results }) + '\n');
process.exit(0);
