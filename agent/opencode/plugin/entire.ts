__MARKER__
// Version 1. OpenCode loads this plugin in every process it starts in
// this project. In a session it forwards the events entire records to
// `entire hooks opencode <verb>`, the event as JSON on stdin, and waits
// for the hook as it would for a command hook; at a turn's end it passes
// the session as `opencode export` prints it, read in-process. It does
// nothing in OpenCode's other commands (export, import, session, ...),
// never throws into OpenCode (entire missing from PATH or a failing hook
// is written to stderr), and adds nothing to the model's context.
import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

const COMMAND: string[] = __ENTIRE_COMMAND__;
// Longest a hook may take before it is killed (the agent goes on).
const TIMEOUT_MS = 30_000;
// OpenCode's commands that run no session: the plugin does nothing there.
const QUIET = new Set(["export", "import", "session", "stats", "models", "auth", "upgrade", "uninstall",
  "debug", "generate", "completion", "mcp", "agent", "github", "pr", "db", "plugin"]);

function command(): string | undefined {
  const args = process.argv.slice(2);
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--log-level") { i++; continue; }
    if (!a.startsWith("-")) return a;
  }
  return undefined;
}

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

function log(message: string): void {
  try {
    process.stderr.write(`entire: ${message}\n`);
  } catch {}
}

export const EntirePlugin = async (ctx: any) => {
  const cmd = command();
  if (cmd !== undefined && QUIET.has(cmd)) return {};
  const program = findProgram(COMMAND[0]);
  if (!program) {
    log(`${COMMAND[0]} is not on PATH: OpenCode sessions here are not recorded`);
    return {};
  }
  const cwd: string = ctx?.directory ?? process.cwd();
  const pending = new Set<Promise<void>>();
  const starts = new Map<string, Promise<void>>();
  const children = new Set<string>();

  const track = (p: Promise<void>): Promise<void> => {
    pending.add(p);
    p.finally(() => pending.delete(p));
    return p;
  };

  const run = (verb: string, payload: Record<string, unknown>): Promise<void> => {
    const p = new Promise<void>((resolve) => {
      let stderr = "";
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = (problem?: string) => {
        if (timer) clearTimeout(timer);
        if (problem) log(`hooks opencode ${verb}: ${problem}`);
        resolve();
      };
      try {
        const child = spawn(program, [...COMMAND.slice(1), "hooks", "opencode", verb], { cwd, stdio: ["pipe", "ignore", "pipe"] });
        timer = setTimeout(() => child.kill("SIGKILL"), TIMEOUT_MS);
        child.stderr?.on("data", (d) => {
          if (stderr.length < 2048) stderr += String(d);
        });
        child.on("error", (e) => done(e.message));
        child.on("close", (code) => done(code === 0 ? undefined : `exit ${code}: ${stderr.trim()}`));
        child.stdin?.on("error", () => {});
        child.stdin?.end(JSON.stringify({ cwd, ...payload }));
      } catch (e) {
        done(String(e));
      }
    });
    return track(p);
  };

  // started runs session-start once per session in this process: for a
  // new session at session.created, for a resumed one (OpenCode sends no
  // event) before its first prompt.
  const started = (sessionID: string, source: string): Promise<void> => {
    let p = starts.get(sessionID);
    if (!p) {
      p = run("session-start", { session_id: sessionID, source });
      starts.set(sessionID, p);
    }
    return p;
  };

  // exported reads the session as `opencode export` prints it.
  const exported = async (sessionID: string) => {
    const info = await ctx.client.session.get({ path: { id: sessionID } });
    const messages = await ctx.client.session.messages({ path: { id: sessionID } });
    return { info: info?.data, messages: messages?.data ?? [] };
  };

  const guard = (name: string, fn: () => Promise<void>) => async () => {
    try {
      await fn();
    } catch (err) {
      log(`${name}: ${String(err)}`);
    }
  };

  return {
    event: async ({ event }: any) =>
      track(guard(event?.type ?? "event", async () => {
        const props = event?.properties ?? {};
        switch (event?.type) {
          case "session.created":
            if (props.info?.parentID) {
              children.add(props.info.id);
              return;
            }
            await started(props.info?.id ?? props.sessionID, "startup");
            return;
          case "session.idle": {
            const id = props.sessionID;
            if (!id || children.has(id)) return;
            const session = await exported(id);
            await run("stop", { session_id: id, ...session });
            return;
          }
          case "session.compacted":
            if (props.sessionID && !children.has(props.sessionID)) await run("compact", { session_id: props.sessionID });
            return;
        }
      })()),
    "chat.message": async (input: any, output: any) =>
      guard("chat.message", async () => {
        const id = input?.sessionID;
        if (!id || children.has(id)) return;
        await started(id, "resume");
        const text = (output?.parts ?? [])
          .filter((p: any) => p?.type === "text" && !p?.synthetic)
          .map((p: any) => p.text)
          .join("\n");
        await run("user-prompt-submit", { session_id: id, prompt: text });
      })(),
    "tool.execute.before": async (input: any, output: any) =>
      guard("tool.execute.before", async () => {
        if (!input?.sessionID || children.has(input.sessionID)) return;
        await run("pre-tool", { session_id: input.sessionID, tool_name: input.tool, tool_use_id: input.callID, tool_input: output?.args });
      })(),
    "tool.execute.after": async (input: any) =>
      guard("tool.execute.after", async () => {
        if (!input?.sessionID || children.has(input.sessionID)) return;
        await run("post-tool", { session_id: input.sessionID, tool_name: input.tool, tool_use_id: input.callID, tool_input: input.args });
      })(),
    // OpenCode does not wait for event handlers: a turn's end still being
    // recorded when the process ends is waited for here.
    dispose: async () => {
      const deadline = new Promise<void>((resolve) => {
        const t: any = setTimeout(resolve, TIMEOUT_MS);
        t?.unref?.();
      });
      await Promise.race([Promise.allSettled([...pending]), deadline]);
    },
  };
};
