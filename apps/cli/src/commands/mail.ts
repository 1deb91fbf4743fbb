import { admin } from '@quire/users-service'
import { ACTOR, readConfig, withStore } from '../context.js'
import { print, type Io } from '../io.js'

/** The newest mails of the outbox: when, to whom, what about, delivered or not. Never the text: it holds tokens. */
export async function listMail(io: Io, options: { limit: number }): Promise<void> {
  const config = readConfig(io)
  await withStore(config, async (store) => {
    const mails = await admin(store, ACTOR).newestMails(options.limit)
    if (mails.length === 0) print(io, 'the outbox is empty')
    for (const mail of mails) print(io, `${mail._createdOn}  ${mail.status.padEnd(6)}  ${mail.to}  ${mail.subject}`)
  })
}
