/** One entry of `python -m fullgraph rules --format json`. */
export interface RuleInfo {
  code: string;
  name: string;
  summary: string;
}

/** The rules listed by `python -m fullgraph rules --format json`; entries without a code are skipped. */
export function parseRules(stdout: string): RuleInfo[] {
  const data: unknown = JSON.parse(stdout);
  if (!Array.isArray(data)) {
    throw new Error("`fullgraph rules --format json` did not print a JSON list");
  }
  const text = (value: unknown): string => (typeof value === "string" ? value : "");
  const rules: RuleInfo[] = [];
  for (const item of data as unknown[]) {
    if (typeof item === "object" && item !== null) {
      const r = item as Record<string, unknown>;
      if (typeof r.code === "string") {
        rules.push({ code: r.code, name: text(r.name), summary: text(r.summary) });
      }
    }
  }
  return rules;
}
