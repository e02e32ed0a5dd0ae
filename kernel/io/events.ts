/** The kernel's change events are a plain emitter (services/context.ts). */
export { EventEmitter } from 'node:events'
