// Child process for the two-process lock test: acquires the lock N times, records its spans.
import { createRedisLockManager } from '../../src/coord/redis-lock.js';
import { sleep } from '../../src/coord/lock.js';
import { connectRedis, waitForRedis } from '../../src/deps.js';

const [url, prefix, resource, times] = process.argv.slice(2);
const redis = connectRedis(url!);
await waitForRedis(redis);
const locks = createRedisLockManager(redis, { prefix });
const spans: [number, number][] = [];
for (let i = 0; i < Number(times); i += 1) {
  const handle = await locks.acquire(resource!, { ttlMs: 5_000, waitMs: 20_000 });
  if (!handle) throw new Error('could not acquire');
  const start = performance.timeOrigin + performance.now();
  await sleep(10);
  const end = performance.timeOrigin + performance.now();
  spans.push([start, end]);
  await handle.release();
}
process.send!({ spans });
redis.disconnect();
