import { convPage } from './conv.js'
import { installKeys } from './keys.js'
import { listPage } from './lists.js'
import { Notifier } from './notify.js'
import { startForms } from './start.js'

/** The deck's browser code: one entry, bundled by the build into the module /deck/client.js serves. */
const page = document.body.dataset.page
installKeys()
if (page === 'deck') startForms()
if (page === 'deck' || page === 'agents') listPage(page, new Notifier())
if (page === 'conv') convPage(document.body.dataset.ref!)
