// savekit::json_schema checked by an independent validator (ajv, JSON Schema 2020-12): the
// schema json_schema_cases wrote must compile, take every save savekit wrote (valid/) and
// refuse every mutated one (invalid/), which savekit's strict reader refuses too.
//   node tests/json_schema/validate.mjs CASES_DIR
import Ajv2020 from 'ajv/dist/2020.js';
import fs from 'node:fs';
import path from 'node:path';

const dir = process.argv[2];
const schema = JSON.parse(fs.readFileSync(path.join(dir, 'schema.json'), 'utf8'));
const ajv = new Ajv2020({ allErrors: true, strict: true });
const validate = ajv.compile(schema);
let failures = 0;
const check = (kind, expect) => {
  const files = fs.readdirSync(path.join(dir, kind));
  if (files.length === 0) {
    console.log(`no ${kind} cases`);
    ++failures;
  }
  for (const file of files) {
    const text = fs.readFileSync(path.join(dir, kind, file), 'utf8');
    const ok = validate(JSON.parse(text));
    if (ok !== expect) {
      ++failures;
      console.log(`${kind}/${file}: the schema ${ok ? 'takes' : 'refuses'} it` +
                  (ok ? '' : `: ${ajv.errorsText(validate.errors)}`) + `\n  ${text.slice(0, 400)}`);
    }
  }
  return files.length;
};
const valid = check('valid', true);
const invalid = check('invalid', false);
console.log(failures ? `${failures} case(s) where ajv and savekit disagree`
                     : `ajv agrees with savekit: ${valid} saves taken, ${invalid} mutated ones refused`);
process.exit(failures ? 1 : 0);
