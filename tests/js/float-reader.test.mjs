// In the wasm, decimal number text is read by the host's Number() instead of
// Rust's reader (src/json/float.rs). The two must agree on every number: here
// the built package reads generated numbers (shortest forms of random doubles,
// 17 to 40 significant digits, halfway cases, subnormals, the edges of the
// range) and each must be the double JSON.parse reads.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { decodeEnvelope } from 'stepline';

import { prng } from '../../bench/lib/random.mjs';

/** Doubles as stepline reads them from `texts`, in one envelope. */
function readBack(texts) {
  const text = `{"type":"agent.status","session_id":"s","execution_id":"e","timestamp":"2026-01-20T12:00:00.250Z",`
    + `"payload":{"status":"processing","previous_status":"idle"},"numbers":[${texts.join(',')}]}`;
  return decodeEnvelope(text).extra.numbers;
}

function generated(count) {
  const random = prng(17);
  const digits = (n) => Array.from({ length: n }, () => Math.floor(random() * 10)).join('');
  const texts = [
    '0.1', '0.30000000000000004', '9007199254740993', '9007199254740992.5', '2.2250738585072014e-308',
    '2.2250738585072011e-308', '4.9e-324', '2.4703282292062328e-324', '2.4703282292062327e-324',
    '1.7976931348623157e308', '1.7976931348623158e308', '179769313486231580793728971405301e276',
    '8.988465674311580536566680e307', '7.2057594037927933e16', '1e23', '8.589973e9',
    '0.000000000000000000000000000000000000001e38', '123456789012345678901234567890.5e-10',
    '-0.0', '1.00000000000000011102230246251565404236316680908203125',
    '1.00000000000000011102230246251565404236316680908203124', '1.00000000000000011102230246251565404236316680908203126',
  ];
  const buffer = new DataView(new ArrayBuffer(8));
  while (texts.length < count) {
    const kind = texts.length % 4;
    if (kind === 0) {
      // A random double's shortest form: every bit pattern that is finite.
      buffer.setUint32(0, Math.floor(random() * 2 ** 32));
      buffer.setUint32(4, Math.floor(random() * 2 ** 32));
      const x = buffer.getFloat64(0);
      if (Number.isFinite(x)) texts.push(JSON.stringify(x));
    } else if (kind === 1) {
      texts.push(`${1 + Math.floor(random() * 9)}${digits(Math.floor(random() * 9))}.${digits(17)}e${Math.floor(random() * 600) - 300}`);
    } else if (kind === 2) {
      // Close to halfway between two doubles: the shortest form of one, digits appended.
      const x = random() * 10 ** Math.floor(random() * 20);
      const [mantissa, exponent = ''] = x.toPrecision(17).split('e');
      const tail = random() < 0.5 ? '5' : `${'4'.repeat(1 + Math.floor(random() * 20))}9`;
      texts.push(`${mantissa}${mantissa.includes('.') ? '' : '.'}${tail}${exponent && `e${exponent}`}`);
    } else {
      texts.push(`0.${digits(30 + Math.floor(random() * 10))}`);
    }
  }
  return texts.filter((t) => Number.isFinite(JSON.parse(t)));
}

test('the wasm reads every decimal number to the double JSON.parse reads', () => {
  const texts = generated(40000);
  assert.ok(texts.length > 39000);
  const read = [];
  for (let i = 0; i < texts.length; i += 1000) read.push(...readBack(texts.slice(i, i + 1000)));
  const wrong = texts.filter((t, i) => !Object.is(read[i], JSON.parse(t)));
  assert.deepEqual(wrong.slice(0, 10), [], `${wrong.length} of ${texts.length} read differently`);
});

test('numbers beyond the double range are refused, as before', () => {
  assert.throws(() => readBack(['1e400']), { code: 'invalid_json' });
});
