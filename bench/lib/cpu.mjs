// A short CPU figure of the machine a benchmark ran on, so that results from different machines
// can be compared: the processor's name and count, and how fast one core does work of the kind a
// bulk batch makes (JSON text of runs with a hundred records, parsed and written again), as MB of
// JSON a second, the best of five half-second rounds. Not a benchmark of its own: a yardstick.
import os from "node:os";

// A run as the sandbox answers for premium-search-people with max_results 100 (about 40 KB).
const RUN = JSON.stringify({
  id: "run_0123456789abcdef", action: "premium-search-people", status: "completed",
  output: Array.from({ length: 100 }, (_, i) => ({
    full_name: `Person ${i}`, headline: "Engineer at Example", location: "Lisbon, Portugal",
    network_profile_identifier: `ACoAA${i}xyz`, profile_url: `https://example.com/in/person-${i}`,
    current_company: { name: "Example", url: "https://example.com/company/example" },
    connections: 500 + i, skills: ["Rust", "SQL", "Leptos"],
  })),
  credits_used: 100, credits_reserved: 0, created_at: "2026-11-26T05:00:00.000Z", completed_at: "2026-11-26T05:00:00.800Z",
});

/** `{ model, cores, json_mb_per_s, summary }` */
export function cpuFigure() {
  let best = 0;
  for (let round = 0; round < 5; round++) {
    const start = performance.now();
    let bytes = 0;
    while (performance.now() - start < 500) {
      bytes += JSON.stringify(JSON.parse(RUN)).length;
    }
    best = Math.max(best, bytes / 1e6 / ((performance.now() - start) / 1000));
  }
  const cpus = os.cpus();
  const model = cpus[0]?.model?.trim() ?? "unknown CPU";
  const json = Math.round(best);
  return { model, cores: cpus.length, json_mb_per_s: json, summary: `${cpus.length} × ${model}; one core parses and writes back ${json} MB of JSON a second` };
}
