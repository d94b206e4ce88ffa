__MARKER__
// Version 1. Pi loads this extension in every session of this project and
// awaits each handler: it forwards the events entire records to
// `entire hooks pi <verb>`, the event as JSON on stdin, and waits for the
// hook as Pi would for a command hook. It never throws into Pi: entire
// missing from PATH or a failing hook is written to stderr and the session
// goes on. It adds nothing to the model's context and blocks no tool.
import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

const COMMAND: string[] = __ENTIRE_COMMAND__;
// Longest a hook may take before it is killed (the agent goes on).
const TIMEOUT_MS = 30_000;

function findProgram(name: string): string | undefined {
  if (isAbsolute(name)) return name;
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {}
  }
  return undefined;
}

const program = findProgram(COMMAND[0]);
let missingSaid = false;

function log(message: string): void {
  try {
    process.stderr.write(`entire: ${message}\n`);
  } catch {}
}

function run(verb: string, payload: Record<string, unknown>): Promise<void> {
  if (!program) {
    if (!missingSaid) log(`${COMMAND[0]} is not on PATH: this session is not recorded`);
    missingSaid = true;
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    let stderr = "";
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = (problem?: string) => {
      if (timer) clearTimeout(timer);
      if (problem) log(`hooks pi ${verb}: ${problem}`);
      resolve();
    };
    try {
      const child = spawn(program, [...COMMAND.slice(1), "hooks", "pi", verb], { stdio: ["pipe", "ignore", "pipe"] });
      timer = setTimeout(() => child.kill("SIGKILL"), TIMEOUT_MS);
      child.stderr?.on("data", (d) => {
        if (stderr.length < 2048) stderr += String(d);
      });
      child.on("error", (e) => done(e.message));
      child.on("close", (code) => done(code === 0 ? undefined : `exit ${code}: ${stderr.trim()}`));
      child.stdin?.on("error", () => {});
      child.stdin?.end(JSON.stringify(payload));
    } catch (e) {
      done(String(e));
    }
  });
}

function base(name: string, ctx: any): Record<string, unknown> {
  const sm = ctx?.sessionManager;
  let sessionId: unknown, file: unknown;
  try {
    sessionId = sm?.getSessionId?.();
    file = sm?.getSessionFile?.();
  } catch {}
  return { hook_event_name: name, session_id: sessionId, transcript_path: file, cwd: ctx?.cwd };
}

// resumed tells a resumed session: Pi says "startup" for those too, but
// only they already hold messages.
function resumed(ctx: any): boolean {
  try {
    return (ctx?.sessionManager?.getEntries?.() ?? []).some((e: any) => e?.type === "message");
  } catch {
    return false;
  }
}

export default function (pi: any) {
  const on = (event: string, handler: (event: any, ctx: any) => Promise<void>) =>
    pi.on(event, async (e: any, ctx: any) => {
      try {
        await handler(e, ctx);
      } catch (err) {
        log(`${event}: ${String(err)}`);
      }
      return undefined;
    });
  on("session_start", (e, ctx) =>
    run("session-start", { ...base("session_start", ctx), source: resumed(ctx) ? "resume" : e?.reason }));
  on("input", async (e, ctx) => {
    if (e?.source === "extension") return;
    await run("user-prompt-submit", { ...base("input", ctx), prompt: e?.text ?? "" });
  });
  on("tool_call", (e, ctx) =>
    run("pre-tool", { ...base("tool_call", ctx), tool_name: e?.toolName, tool_use_id: e?.toolCallId, tool_input: e?.input }));
  on("tool_result", (e, ctx) =>
    run("post-tool", { ...base("tool_result", ctx), tool_name: e?.toolName, tool_use_id: e?.toolCallId, tool_input: e?.input }));
  on("agent_end", (_e, ctx) => run("stop", base("agent_end", ctx)));
  on("session_compact", (_e, ctx) => run("compact", base("session_compact", ctx)));
  on("session_shutdown", (e, ctx) => run("session-end", { ...base("session_shutdown", ctx), reason: e?.reason }));
}
