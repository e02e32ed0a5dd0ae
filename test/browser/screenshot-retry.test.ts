import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { screenshotOf } from '../helpers/chromium.js'

// The browser suites' one way to take a screenshot: Chromium's "no frame yet" answer is asked again a moment later,
// any other error fails at once. A page stand-in answers as told, so that each case is exact.

const NO_FRAME = 'page.screenshot: Protocol error (Page.captureScreenshot): Unable to capture screenshot'

function pageAnswering(errors: string[]) {
  const asked: { type?: string; fullPage?: boolean }[] = []
  return {
    asked,
    async screenshot(o: { type?: 'png'; fullPage?: boolean }) {
      asked.push(o)
      const e = errors.shift()
      if (e) throw new Error(e)
      return Buffer.from('png')
    },
  }
}

test('no frame twice, then a picture: the picture is returned after three askings, each as a png', async () => {
  const page = pageAnswering([NO_FRAME, NO_FRAME])
  assert.equal(await screenshotOf(page, { fullPage: true }, 1), Buffer.from('png'))
  assert.equal(
    page.asked,
    [1, 2, 3].map(() => ({ type: 'png', fullPage: true })),
  )
})

test('no frame five times: the fifth answer is thrown, and the page is not asked a sixth time', async () => {
  const page = pageAnswering(Array(6).fill(NO_FRAME))
  try {
    await screenshotOf(page, {}, 1)
    assert.unreachable('a browser that never draws must fail the test')
  } catch (e) {
    assert.match(String((e as Error).message), 'Unable to capture screenshot')
  }
  assert.is(page.asked.length, 5)
})

test('any other error is thrown at once, without asking again', async () => {
  const page = pageAnswering(['Target page, context or browser has been closed'])
  try {
    await screenshotOf(page, {}, 1)
    assert.unreachable('a closed page must fail the test')
  } catch (e) {
    assert.match(String((e as Error).message), 'has been closed')
  }
  assert.is(page.asked.length, 1)
})

test.run()
