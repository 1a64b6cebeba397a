import { measurementOf, type Measurement } from './measure.js';

/**
 * `subject` relative to a `reference` measured in the same run: the ratio of each pair of runs (run
 * `i` with run `i`), summarised; its p50 is the figure to quote ("0.04x the reference"). Pairing
 * cancels the slow drift of a shared machine better than dividing two medians.
 */
export function ratio(subject: Measurement, reference: Measurement): Measurement {
  if (subject.samples.length !== reference.samples.length) {
    throw new RangeError(
      `cannot pair ${subject.samples.length} runs of ${subject.name} with ${reference.samples.length} of ${reference.name}`,
    );
  }
  const ratios = subject.samples.map((s, i) => {
    const r = reference.samples[i] as number;
    if (!(r > 0)) throw new RangeError(`reference ${reference.name} has a non-positive sample ${r}`);
    return s / r;
  });
  return measurementOf(`${subject.name}/${reference.name}`, ratios, 'x');
}
