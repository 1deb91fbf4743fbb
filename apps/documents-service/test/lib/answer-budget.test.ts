import t from 'tap'
import { AnswerBudget } from '../../src/lib/answer-budget.js'

const live = () => new AbortController().signal

t.test('takes what fits at once; the others wait in order for what is given back', async (t) => {
  const budget = new AnswerBudget(100)
  const order: string[] = []
  const giveA = await budget.take(60, live())
  const granted = (name: string) => (give: (bytes?: number) => void) => {
    order.push(name)
    return give
  }
  const b = budget.take(50, live()).then(granted('b'))
  const c = budget.take(10, live()).then(granted('c'))
  await Promise.resolve()
  t.equal(budget.held, 60, 'b waits; c waits behind it though it would fit')
  const giveEmpty = await budget.take(0, live())
  giveEmpty()
  t.equal(budget.held, 60, 'an empty answer does not wait behind them')
  giveA(5)
  await Promise.resolve()
  t.equal(budget.held, 55, 'part given back: b still does not fit')
  giveA()
  const giveB = await b
  await c
  t.same(order, ['b', 'c'])
  t.equal(budget.held, 60)
  giveB()
  giveB()
  t.equal(budget.held, 10, 'giving twice gives once')
})

t.test('a wait stops when its signal aborts, and those behind it go on', async (t) => {
  const budget = new AnswerBudget(100)
  const give = await budget.take(90, live())
  const ended = new AbortController()
  const waiting = budget.take(50, ended.signal)
  const behind = budget.take(10, live())
  ended.abort(new Error('run ended'))
  await t.rejects(waiting, { message: 'run ended' })
  await behind
  t.equal(budget.held, 100)
  give()
  t.equal(budget.held, 10)
  await t.rejects(budget.take(101, live()), RangeError, 'more than the whole budget is refused')
  const aborted = new AbortController()
  aborted.abort(new Error('gone'))
  await t.rejects(budget.take(1, aborted.signal), { message: 'gone' })
})
