// Checks Kubernetes manifests against the Kubernetes OpenAPI schema, offline, as kubeconform
// -strict would: node k8s.mjs FILE.yaml...
//  1. YAML: every document parses (duplicate keys are errors);
//  2. the schema's validator (kubernetes-models, generated from the OpenAPI schema): types,
//     required fields, enums, formats;
//  3. no unknown field anywhere (kubeconform's -strict): each document is type-checked by
//     TypeScript against the schema's own interface, whose excess-property check names the field.
// Prints one line per document ("FILE: Kind/name ok") and exits 1 on the first file with an error.
import { readFileSync, mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import ts from "typescript";

const here = dirname(fileURLToPath(import.meta.url));

// apiVersion/kind -> [module, class]; the kinds contrib/ uses.
const kinds = {
  "v1/Pod": ["kubernetes-models/v1/Pod", "Pod"],
  "v1/Service": ["kubernetes-models/v1/Service", "Service"],
  "v1/ConfigMap": ["kubernetes-models/v1/ConfigMap", "ConfigMap"],
  "v1/ServiceAccount": ["kubernetes-models/v1/ServiceAccount", "ServiceAccount"],
  "apps/v1/DaemonSet": ["kubernetes-models/apps/v1/DaemonSet", "DaemonSet"],
  "apps/v1/Deployment": ["kubernetes-models/apps/v1/Deployment", "Deployment"],
  "monitoring.coreos.com/v1/ServiceMonitor":
    ["@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor", "ServiceMonitor"],
  "monitoring.coreos.com/v1/PrometheusRule":
    ["@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule", "PrometheusRule"],
};

function fail(file, message) {
  console.error(`${file}: ${message}`);
  process.exitCode = 1;
}

async function checkFile(file) {
  const docs = parseAllDocuments(readFileSync(file, "utf8"), { uniqueKeys: true, prettyErrors: true });
  const typed = [];
  let errors = 0;
  for (const [i, doc] of docs.entries()) {
    const where = `document ${i + 1}`;
    if (doc.errors.length) { fail(file, `${where}: ${doc.errors[0].message}`); errors++; continue; }
    const obj = doc.toJS();
    if (obj === null || obj === undefined) continue;  // an empty document (a trailing ---)
    const key = `${obj.apiVersion}/${obj.kind}`;
    const entry = kinds[key];
    if (!entry) { fail(file, `${where}: ${key} is not a kind this checker knows; add it to k8s.mjs`); errors++; continue; }
    const [module, cls] = entry;
    const Model = (await import(module))[cls];
    try {
      new Model(obj).validate();
    } catch (e) {
      fail(file, `${where} (${obj.kind}/${obj.metadata?.name}): ${e.message}`); errors++; continue;
    }
    typed.push({ where, obj, module, cls });
  }
  if (errors) return;
  if (typed.length === 0) { fail(file, "no Kubernetes object found"); return; }

  // The strict check: one TypeScript file assigning each object literal to its interface.
  // Inside node_modules, so that the file's imports resolve to the packages installed here.
  const dir = mkdtempSync(join(here, "node_modules", ".dcukit-k8s-"));
  try {
    const lines = [];
    typed.forEach(({ module, cls }, n) => lines.push(`import type { I${cls} as T${n} } from "${module}";`));
    typed.forEach(({ obj }, n) => lines.push(`export const doc${n}: T${n} = ${JSON.stringify(obj, null, 1)};`));
    const text = lines.join("\n").split("\n");  // the JSON spans lines: map lines back to documents
    const source = join(dir, "manifest.ts");
    writeFileSync(source, text.join("\n"));
    const program = ts.createProgram([source], {
      noEmit: true, strict: true, skipLibCheck: true, target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
      typeRoots: [], types: [],
    });
    const diags = ts.getPreEmitDiagnostics(program).filter((d) => d.file?.fileName === source || !d.file);
    for (const d of diags) {
      const message = ts.flattenDiagnosticMessageText(d.messageText, "\n");
      let which = "";
      if (d.file && d.start !== undefined) {
        const line = d.file.getLineAndCharacterOfPosition(d.start).line;
        const at = text.slice(0, line + 1).findLastIndex((l) => l.startsWith("export const doc"));
        const n = at < 0 ? -1 : Number(/^export const doc(\d+)/.exec(text[at])[1]);
        if (n >= 0) which = `${typed[n].where} (${typed[n].obj.kind}/${typed[n].obj.metadata?.name}): `;
      }
      fail(file, `${which}${message.split("\n").slice(-2).join(" ")}`);
    }
    if (diags.length) return;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  for (const { obj } of typed) console.log(`${file}: ${obj.kind}/${obj.metadata?.name} ok`);
}

if (process.argv.length < 3) {
  console.error("usage: node k8s.mjs FILE.yaml...");
  process.exit(2);
}
for (const file of process.argv.slice(2)) await checkFile(file);
