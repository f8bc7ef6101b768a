// Quick experiment: N REST writes against a server URL, sequential; prints p50.
import { ulid } from 'ulidx'

const [url, token, n] = [process.argv[2]!, process.argv[3]!, Number(process.argv[4] ?? 200)]
const t: number[] = []
for (let i = 0; i < n; i++) {
  const s = performance.now()
  const res = await fetch(`${url}/households/current/tags`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `x ${ulid()}` }),
  })
  await res.arrayBuffer()
  if (res.status !== 201) throw new Error(String(res.status))
  t.push(performance.now() - s)
}
t.sort((a, b) => a - b)
console.log('p50', t[Math.floor(n / 2)]!.toFixed(2))
