/** Path arithmetic (no I/O): what services compute paths with, so that none of them imports node:path itself. */
export { basename, delimiter, dirname, isAbsolute, join, resolve } from 'node:path'
