// Runs the slowest test files first, so jest's workers finish together: jest orders by the times it cached from the
// last run on this machine, and a fresh machine has none (it would order by file size, and the slowest files, which
// are not the largest, start last and run alone at the end). There the times of a full CI run, committed in
// test/file-durations.json (`npm run -s test:durations` writes it from .data/jest-results.json), stand in.
const { relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;
const committed = require('../file-durations.json');

class SlowestFirst extends Sequencer {
  time(test) {
    const cached = super.time(test);
    if (cached !== undefined) return cached;
    const seconds = committed.files[relative(test.context.config.rootDir, test.path)];
    return seconds === undefined ? undefined : seconds * 1000;
  }
}

module.exports = SlowestFirst;
