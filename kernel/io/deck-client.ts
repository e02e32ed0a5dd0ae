import { readFile } from 'node:fs/promises'
import { SvcError } from '../domain/errors.js'

/** The deck's browser code: the project's browser modules compiled by tsc and joined into one module by the build
 * (cli/postbuild.ts). Read once; the handlers serve it from here, in process or on workerd alike. */
const BUNDLE = new URL('../../handlers/deck/client.bundle.js', import.meta.url)
let text: Promise<string> | undefined

export function deckClientText(): Promise<string> {
  text ??= readFile(BUNDLE, 'utf8').catch(() => {
    text = undefined
    throw new SvcError('unavailable', "the deck's browser code is not built", 'run npm run build in the checkout')
  })
  return text
}
