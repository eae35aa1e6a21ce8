// Waiting in tests for something the system does on its own time (a delivery, a webhook, a suspension).
export { pause, until } from '../harness/wait.js';
