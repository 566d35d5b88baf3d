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
// Prints one JSON line: {median_us, p90_us, samples, measured} or {error, measured}. The SDK comes from
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

async function timed(call, repeat, measured) {
  for (let i = 0; i < WARMUP; i++) await call();
  const samples = [];
  for (let i = 0; i < repeat; i++) {
    const started = process.hrtime.bigint();
    await call();
    samples.push(Number(process.hrtime.bigint() - started) / 1000);
  }
  return summary(samples, measured);
}

async function viaSdk(url, tool, args, repeat) {
  const { Client } = sdk("@modelcontextprotocol/sdk/client/index.js");
  const { StreamableHTTPClientTransport } = sdk("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const version = require(path.join(INSPECTOR, "node_modules", "@modelcontextprotocol", "sdk", "package.json")).version;
  const client = new Client({ name: "officeworld-bench", version: "0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    const call = async () => {
      const result = await client.callTool({ name: tool, arguments: args });
      if (result.isError) throw new Error(`tool error: ${JSON.stringify(result.content).slice(0, 300)}`);
    };
    return await timed(call, repeat, `official TypeScript SDK ${version}: Client.callTool over `
                       + "StreamableHTTPClientTransport, in the session its connect made (Node " + process.version + ")");
  } finally {
    await client.close();
  }
}

async function post(url, body, headers) {
  const answer = await fetch(url, { method: "POST", body: JSON.stringify(body), headers: {
    "content-type": "application/json", accept: "application/json, text/event-stream", ...headers } });
  const text = await answer.text();
  if (!answer.ok) throw new Error(`HTTP ${answer.status}: ${text.slice(0, 300)}`);
  return { answer, data: JSON.parse(text) };
}

async function viaJsonRpc(url, tool, args, repeat, openenv) {
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
  const out = await timed(call, repeat, `fetch (Node ${process.version}): a JSON-RPC tools/call POSTed, ${how}`);
  if (openenv) {  // OpenEnv's sessions are few: give it back
    await post(url, { jsonrpc: "2.0", id: ++id, method: "openenv/session/close", params: { session_id: params.session_id } });
  }
  return out;
}

async function main() {
  const [mode, url, tool, argsJson, repeat, flavour] = process.argv.slice(2);
  const args = JSON.parse(argsJson);
  try {
    const out = mode === "sdk" ? await viaSdk(url, tool, args, Number(repeat))
      : await viaJsonRpc(url, tool, args, Number(repeat), flavour === "openenv");
    console.log(JSON.stringify(out));
  } catch (exc) {
    console.log(JSON.stringify({ error: String(exc && exc.message || exc).slice(0, 500),
                                 measured: `${mode} client could not call ${url}` }));
  }
}

main();
