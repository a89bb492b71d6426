/**
 * pubsub/ws-frames.ts against ws itself: the frames it builds are read back by ws's Receiver as
 * the same texts, in order, across the three payload-length forms and multi-byte characters.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { framed, framesOf, textFrames } from '../../node-core/pubsub/ws-frames.ts';

/** ws's frame reader: exported by ws at run time, not in @types/ws. */
interface FrameReceiver {
  on(event: 'message', listener: (data: Buffer, isBinary: boolean) => void): void;
  on(event: 'error', listener: (e: Error) => void): void;
  write(chunk: Buffer, callback: () => void): void;
}
const { Receiver } = createRequire(import.meta.url)('ws') as { Receiver: new (options: { isServer: boolean; maxPayload: number }) => FrameReceiver };

/** The messages a client-side ws Receiver reads from `bytes`. */
function received(bytes: Buffer): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const texts: string[] = [];
    const receiver = new Receiver({ isServer: false, maxPayload: 0 });
    receiver.on('message', (data: Buffer, isBinary: boolean) => {
      assert.equal(isBinary, false);
      texts.push(data.toString('utf8'));
    });
    receiver.on('error', reject);
    receiver.write(bytes, () => resolve(texts));
  });
}

test('text frames of every payload-length form, read back by ws as the same texts', async () => {
  const texts = ['', 'a', 'x'.repeat(125), 'y'.repeat(126), 'z'.repeat(65_535), 'w'.repeat(65_536), '{"naïve":"€ 𝄞"}', JSON.stringify({ big: 'q'.repeat(200_000) })];
  assert.deepEqual(await received(textFrames(texts)), texts);
});

test('the header lengths: 2, 4 and 10 bytes at the 126 and 65,536 byte boundaries', () => {
  assert.equal(textFrames(['x'.repeat(125)]).length, 2 + 125);
  assert.equal(textFrames(['x'.repeat(126)]).length, 4 + 126);
  assert.equal(textFrames(['x'.repeat(65_535)]).length, 4 + 65_535);
  assert.equal(textFrames(['x'.repeat(65_536)]).length, 10 + 65_536);
  // Multi-byte characters count in bytes, not UTF-16 units.
  assert.equal(textFrames(['€'.repeat(42)]).length, 2 + 126 + 2);
  assert.equal(textFrames([]).length, 0);
});

test('held texts and runs framed ahead leave as one buffer, in their order', async () => {
  const ahead = framed(['b', 'c'.repeat(300)]);
  assert.deepEqual(await received(framesOf(['a', ahead, 'd', 'e'])), ['a', 'b', 'c'.repeat(300), 'd', 'e']);
  assert.equal(framesOf([ahead]), ahead.frames);
  assert.deepEqual(await received(framesOf([ahead, ahead])), ['b', 'c'.repeat(300), 'b', 'c'.repeat(300)]);
});
