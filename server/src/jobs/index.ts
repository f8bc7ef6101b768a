export * from './job.ts'
export * from './job-lock.ts'
export * from './job-runner.ts'
export * from './server-jobs.ts'
