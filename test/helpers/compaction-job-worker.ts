// Child process for the crash test: works compaction jobs from the given database, tells the
// parent when it has taken one, and never finishes it (the parent kills it with SIGKILL).
import { createCompactionQueue } from '../../src/modules/compaction/compaction.jobs.js';
import { openDatabase } from '../../src/db/client.js';

const [url] = process.argv.slice(2);
const database = await openDatabase({ databaseUrl: url!, dataDir: '' });
const queue = createCompactionQueue({
  database,
  config: { DATABASE_URL: url!, COMPACTION_JOB_EXPIRE_SECONDS: 2 },
  options: { maintenanceIntervalSeconds: 1, pollingIntervalSeconds: 0.5 },
});
await queue.work(async (job) => {
  process.send!({ taken: job.id });
  await new Promise(() => {});
}, 1);
process.send!({ ready: true });
