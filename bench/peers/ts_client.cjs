// One MCP server's tool call, timed from Node 20 (by hand, not in CI; run by bench/peers/run.py).
//
//   node ts_client.cjs sdk URL TOOL ARGS_JSON REPEAT       the official TypeScript SDK's Client over
//                                                          StreamableHTTPClientTransport: connects once
//                                                          (initialize), then times REPEAT callTool
//   node ts_client.cjs jsonrpc URL TOOL ARGS_JSON REPEAT [openenv]
//                                                          a bare JSON-RPC tools/call POSTed with fetch
//                                                          (keep-alive) in a session made once: the
//                                                          MCP handshake's Mcp-Session-Id, or with
//                                                          "openenv" OpenEnv's openenv/session/create
//
// URL may be several, comma-separated: each gets its own client and session, and the timed calls take turns
// (one call on each, round after round), so every URL is measured under the same load; then the line is
// {runs: [one figure per URL]}.
// Prints one JSON line: {median_us, p90_us, samples, measured, client_cpu_us_per_call} or {error, measured}. The SDK comes from
// tools/inspector/node_modules (the MCP Inspector's install), so nothing is downloaded.
"use strict";
const path = require("path");
const { createRequire } = require("module");

const INSPECTOR = path.join(__dirname, "..", "..", "tools", "inspector");
const sdk = createRequire(path.join(INSPECTOR, "package.json"));
const WARMUP = 10;

function summary(samples, measured) {
  samples.sort((a, b) => a - b);
  const at = (i) => Math.round(samples[i] * 10) / 10;
  return { median_us: at(Math.floor(samples.length / 2)), p90_us: at(Math.floor(samples.length * 0.9) - 1),
           samples: samples.length, measured };
}

async function timedInTurns(clients, repeat) {
  for (const { call } of clients) for (let i = 0; i < WARMUP; i++) await call();
  const samples = clients.map(() => []), cpu = clients.map(() => []);
  for (let i = 0; i < repeat; i++) {
    for (const [k, { call }] of clients.entries()) {
      const own = process.cpuUsage(), started = process.hrtime.bigint();
      await call();
      samples[k].push(Number(process.hrtime.bigint() - started) / 1000);
      const used = process.cpuUsage(own);
      cpu[k].push(used.user + used.system);
    }
  }
  return clients.map(({ measured }, k) => {
    cpu[k].sort((a, b) => a - b);  // this process's CPU per call (µs, its median), as the Python probes give theirs
    return { ...summary(samples[k], measured), client_cpu_us_per_call: cpu[k][Math.floor(cpu[k].length / 2)] };
  });
}

async function viaSdk(url, tool, args) {
  const { Client } = sdk("@modelcontextprotocol/sdk/client/index.js");
  const { StreamableHTTPClientTransport } = sdk("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const version = require(path.join(INSPECTOR, "node_modules", "@modelcontextprotocol", "sdk", "package.json")).version;
  const client = new Client({ name: "officeworld-bench", version: "0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const call = async () => {
    const result = await client.callTool({ name: tool, arguments: args });
    if (result.isError) throw new Error(`tool error: ${JSON.stringify(result.content).slice(0, 300)}`);
  };
  return { call, close: () => client.close(), measured: `official TypeScript SDK ${version}: Client.callTool over `
           + "StreamableHTTPClientTransport, in the session its connect made (Node " + process.version + ")" };
}

async function post(url, body, headers) {
  const answer = await fetch(url, { method: "POST", body: JSON.stringify(body), headers: {
    "content-type": "application/json", accept: "application/json, text/event-stream", ...headers } });
  const text = await answer.text();
  if (!answer.ok) throw new Error(`HTTP ${answer.status}: ${text.slice(0, 300)}`);
  return { answer, data: JSON.parse(text) };
}

async function viaJsonRpc(url, tool, args, openenv) {
  let headers = {}, params = { name: tool, arguments: args }, id = 0;
  if (openenv) {
    const { data } = await post(url, { jsonrpc: "2.0", id: ++id, method: "openenv/session/create", params: {} });
    if (data.error) throw new Error(JSON.stringify(data.error));
    params = { ...params, session_id: data.result.session_id };
  } else {
    const { answer } = await post(url, { jsonrpc: "2.0", id: ++id, method: "initialize", params: {
      protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "officeworld-bench", version: "0" } } });
    headers = { "mcp-session-id": answer.headers.get("mcp-session-id"), "mcp-protocol-version": "2025-06-18" };
    await fetch(url, { method: "POST", headers: { "content-type": "application/json", accept:
      "application/json, text/event-stream", ...headers },
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) }).then((r) => r.text());
  }
  const call = async () => {
    const { data } = await post(url, { jsonrpc: "2.0", id: ++id, method: "tools/call", params }, headers);
    if (data.error || data.result.isError) throw new Error(JSON.stringify(data).slice(0, 300));
  };
  const how = openenv ? "in the session openenv/session/create made (session_id in params)"
    : "in the session the MCP handshake made (Mcp-Session-Id)";
  const close = async () => {
    if (openenv) {  // OpenEnv's sessions are few: give it back
      await post(url, { jsonrpc: "2.0", id: ++id, method: "openenv/session/close", params: { session_id: params.session_id } });
    }
  };
  return { call, close, measured: `fetch (Node ${process.version}): a JSON-RPC tools/call POSTed, ${how}` };
}

async function main() {
  const [mode, url, tool, argsJson, repeat, flavour] = process.argv.slice(2);
  const args = JSON.parse(argsJson);
  const clients = [];
  try {
    for (const one of url.split(",")) {
      clients.push(mode === "sdk" ? await viaSdk(one, tool, args) : await viaJsonRpc(one, tool, args, flavour === "openenv"));
    }
    const figures = await timedInTurns(clients, Number(repeat));
    for (const { close } of clients) await close();
    console.log(JSON.stringify(url.includes(",") ? { runs: figures } : figures[0]));
  } catch (exc) {
    console.log(JSON.stringify({ error: String(exc && exc.message || exc).slice(0, 500),
                                 measured: `${mode} client could not call ${url}` }));
  }
}

main();
