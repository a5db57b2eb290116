export * from './task.machine.js';
