export * from './task.machine.js';
export * from './task-run.machine.js';
