// SPDX-License-Identifier: ISC
// node k8s-validate.mjs MODULES FILE.yaml...: check Kubernetes manifests
// offline, as far as no cluster is needed. MODULES is a node_modules
// directory holding kubernetes-models (its schemas are Kubernetes' OpenAPI
// ones, compiled for ajv) and js-yaml. Three layers, each printing one line
// per finding, "FILE: document N (Kind name): ...":
//   1. the schema: types, required fields, enums (kubernetes-models'
//      validate());
//   2. unknown fields, which the OpenAPI schema lets through but the API
//      server refuses (kubectl's default field validation is Strict), by
//      the fields kubernetes-models declares for each type (its .d.ts);
//   3. the API server's rules that no schema states, for the fields these
//      manifests use (procMount Unmasked needs hostUsers false, ...).
// Exit 0 when every document passes, 1 otherwise, 2 on bad usage.
import { readFileSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const [mods, ...files] = process.argv.slice(2);
if (!mods || !files.length) {
	console.error("usage: node k8s-validate.mjs NODE_MODULES FILE.yaml...");
	process.exit(2);
}
const km = join(mods, "kubernetes-models");
const yaml = createRequire(join(mods, "x.js"))("js-yaml");
const kinds = {
	"v1/Pod": "v1/Pod",
	"v1/ConfigMap": "v1/ConfigMap",
	"batch/v1/Job": "batch/v1/Job",
};

// The fields of the interface a .d.ts declares, each with its type's text,
// and the file of each type it imports.
const dtsCache = new Map();
function dts(file) {
	if (dtsCache.has(file)) return dtsCache.get(file);
	const src = existsSync(file) ? readFileSync(file, "utf8") : "";
	const imports = new Map();
	for (const m of src.matchAll(/^import \{ (\w+) \} from "([^"]+)";$/gm)) {
		const to = m[2].startsWith(".")
			? join(dirname(file), m[2].replace(/\.js$/, ".d.ts"))
			: join(mods, m[2] + ".d.ts");
		imports.set(m[1], to);
	}
	const body = /^export interface \w+(?: extends [\w, ]+)? \{\n([\s\S]*?)^\}/m.exec(src);
	const fields = body ? new Map() : null;
	if (body) {
		const text = body[1].replace(/\/\*\*[\s\S]*?\*\//g, "").replace(/^[ \t]*\n/gm, "");
		for (const m of text.matchAll(/^ {4}"([^"]+)"\??: ([\s\S]*?);\n(?= {4}"|$)/gm))
			fields.set(m[1], m[2]);
	}
	const r = { fields, imports };
	dtsCache.set(file, r);
	return r;
}

// Layer 2: every field of v known to the type of file, recursively.
function unknown(v, file, path, out) {
	const { fields, imports } = dts(file);
	if (!fields || v === null || typeof v !== "object" || Array.isArray(v)) return;
	for (const [k, sub] of Object.entries(v)) {
		if (!fields.has(k)) {
			out.push(`${path}.${k}: unknown field`);
			continue;
		}
		let t = fields.get(k).trim();
		let subs = [sub];
		const arr = /^Array<(\w+)>$/.exec(t);
		const map = /^\{\s*\[key: string\]: (\w+);\s*\}$/.exec(t);
		if (arr) {
			t = arr[1];
			subs = Array.isArray(sub) ? sub : [];
		} else if (map) {
			t = map[1];
			subs = sub && typeof sub === "object" ? Object.values(sub) : [];
		}
		if (imports.has(t))
			subs.forEach((s, i) => unknown(s, imports.get(t), arr ? `${path}.${k}[${i}]` : `${path}.${k}`, out));
	}
}

// Layer 3: the API server's validation of these fields (Kubernetes 1.30 on).
function podRules(spec, path, out) {
	if (!spec) return;
	const cs = [...(spec.initContainers || []), ...(spec.containers || [])];
	const vols = new Set((spec.volumes || []).map((v) => v.name));
	const sp = (spec.securityContext || {}).seccompProfile;
	for (const [where, p] of [[`${path}.securityContext`, sp]].concat(
		cs.map((c, i) => [`${path}.containers[${i}].securityContext`, (c.securityContext || {}).seccompProfile]))) {
		if (p && (p.type === "Localhost") !== (typeof p.localhostProfile === "string"))
			out.push(`${where}.seccompProfile: localhostProfile must be set for type Localhost, and only for it`);
	}
	if (spec.hostUsers === false && (spec.hostNetwork || spec.hostPID || spec.hostIPC))
		out.push(`${path}: hostUsers false forbids hostNetwork, hostPID and hostIPC`);
	cs.forEach((c, i) => {
		const w = `${path}.containers[${i}]`;
		if ((c.securityContext || {}).procMount === "Unmasked" && spec.hostUsers !== false)
			out.push(`${w}.securityContext.procMount: Unmasked needs spec.hostUsers: false`);
		for (const m of c.volumeMounts || [])
			if (!vols.has(m.name)) out.push(`${w}.volumeMounts: no volume named ${m.name}`);
		const r = c.resources || {};
		for (const res of ["cpu", "memory"]) {
			const q = (r.requests || {})[res], l = (r.limits || {})[res];
			if (q === undefined || String(q) !== String(l))
				out.push(`${w}.resources: ${res} requests ${q} and limits ${l} differ (not Guaranteed QoS)`);
		}
	});
}

function rules(doc, out) {
	if (doc.kind === "Pod") podRules(doc.spec, "spec", out);
	if (doc.kind === "Job") {
		const s = doc.spec || {};
		const t = (s.template || {}).spec || {};
		if (s.completionMode === "Indexed" && !(s.completions > 0))
			out.push("spec.completions: needed by completionMode Indexed");
		if (!["Never", "OnFailure"].includes(t.restartPolicy))
			out.push("spec.template.spec.restartPolicy: Never or OnFailure for a Job");
		podRules(t, "spec.template.spec", out);
	}
	if (doc.kind === "ConfigMap")
		for (const k of Object.keys(doc.data || {}))
			if (!/^[-._a-zA-Z0-9]+$/.test(k)) out.push(`data.${k}: not a valid key`);
}

let bad = 0, n = 0;
for (const f of files) {
	const docs = yaml.loadAll(readFileSync(f, "utf8")).filter((d) => d);
	for (const [i, doc] of docs.entries()) {
		const key = kinds[`${doc.apiVersion}/${doc.kind}`];
		const label = `${f}: document ${i + 1} (${doc.kind} ${(doc.metadata || {}).name})`;
		const out = [];
		n++;
		if (!key) {
			out.push(`${doc.apiVersion} ${doc.kind}: not a kind this check knows`);
		} else {
			const mod = await import(pathToFileURL(join(km, `${key}.js`)).href);
			const cls = mod[key.split("/").pop()];
			try {
				new cls(doc).validate();
			} catch (e) {
				out.push(`schema: ${e.message.split("\n")[0]}`);
			}
			unknown(doc, join(km, `${key}.d.ts`), doc.kind, out);
			rules(doc, out);
		}
		for (const o of out) console.log(`${label}: ${o}`);
		if (out.length) bad++;
		else console.log(`${label}: valid`);
	}
}
console.log(`${n} documents, ${bad} with findings`);
process.exit(bad || !n ? 1 : 0);
