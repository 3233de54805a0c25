/**
 * `toolgate serve` under load, a real server process on a SQLite file in the
 * scratch directory (the project's disk): approvals from 64 concurrent HTTP
 * clients against raw SQLite commits measured in the same run, and a store
 * of 10,000 paused runs (1,000 with --quick): memory and restart time; and
 * what recording a model answer costs a step.
 */
import type { BenchSuite } from '../harness.ts';
import { approveCase } from './server-approve-case.ts';
import { pausedRunsCase, runsInFlightCase } from './server-paused-runs-case.ts';
import { stepRecordCase } from './server-step-record-case.ts';

export const serverSuite: BenchSuite = {
  name: 'server',
  async run(context) {
    return [...(await approveCase(context)), ...(await stepRecordCase(context)), ...(await pausedRunsCase(context)), ...(await runsInFlightCase(context))];
  },
};
