// hail's opencode plugin, written by `hail setup` (which rewrites it whole: edit nothing here).
// Every hook runs the hail command of HOOKS and hands what it printed to opencode; the mail itself
// is hail's alone. A hook never fails the session: whatever goes wrong, opencode goes on.
import { spawn } from "node:child_process"
import { existsSync, readdirSync, renameSync, unlinkSync, watch, writeFileSync } from "node:fs"
import { join } from "node:path"

const HAIL = "@HAIL_PROGRAM@"
const HOOKS = @HAIL_HOOKS@
// How long one hail command may take before its output is given up.
const RUN_LIMIT_MS = 10000
// The events of one wake mark (its temporary file, its rename) wake the session once; the mail is
// in the inbox before the mark is written, and a second look finds it claimed.
const SETTLE_MS = 10

// The gauge record: the figures of this process's session's newest reply (one assistant message is
// one model call), its model's window and the session's totals, for `hail seats` and `hail watch`.
// Written whole and renamed into the pane's mailbox directory, beside its other marks.
const GAUGE = "gauge-opencode-"

// The mailboxes whose directories this plugin watches. Every hook payload says whether it watches
// any, so a send says "woken by its plugin" only when a plugin that watches ran lately.
const watching = new Set()
// Where this process's gauge record goes, once hail named the pane's mailbox: every hook payload
// names it (`gauge_path`), so the prompt hook's agent record points the gauge at it.
let gaugePath = ""

function run(args, payload, cwd) {
  return new Promise((resolve) => {
    let out = ""
    let child
    try {
      child = spawn(HAIL, args, { cwd, stdio: ["pipe", "pipe", "ignore"] })
    } catch {
      resolve("")
      return
    }
    const timer = setTimeout(() => child.kill("SIGKILL"), RUN_LIMIT_MS)
    child.on("error", () => {
      clearTimeout(timer)
      resolve("")
    })
    child.stdout.on("data", (chunk) => {
      out += chunk
    })
    child.on("close", (code) => {
      clearTimeout(timer)
      resolve(code === 0 ? out.trim() : "")
    })
    child.stdin.on("error", () => {})
    child.stdin.end(
      payload === undefined
        ? ""
        : JSON.stringify({ ...payload, watching: watching.size > 0, gauge_path: gaugePath }),
    )
  })
}

export const Hail = async ({ client, directory }) => {
  const children = new Set() // sub-agent sessions: their context is thrown away
  const busy = new Set()
  const briefed = new Set()
  let current = "" // the session the person works in, which a wake prompts
  let brief = run(HOOKS["session.start"], undefined, directory)

  const isChild = async (id) => {
    if (children.has(id)) return true
    try {
      const got = await client.session.get({ path: { id } })
      if (got?.data?.parentID) children.add(id)
    } catch {}
    return children.has(id)
  }

  const woken = new Set() // prompts of hail's own wakes: their mail is claimed and framed already
  const prompt = async (id, text) => {
    busy.add(id)
    woken.add(text)
    try {
      await client.session.promptAsync({ path: { id }, body: { parts: [{ type: "text", text }] } })
    } catch {
      busy.delete(id)
      woken.delete(text)
    }
  }

  // A wake: a send that means to wake this seat renames its mark into the mailbox; while the
  // session is idle, that starts a turn with the mail.
  let timer
  const wake = (_kind, name) => {
    // Bun names a rename by its old name: the mark's temporary `.wake.<pid>.tmp`.
    const file = name ? String(name) : "wake"
    if (file !== "wake" && !file.startsWith(".wake.")) return
    clearTimeout(timer)
    timer = setTimeout(async () => {
      if (!current || busy.has(current)) return // a busy session gets it from its hooks
      const text = await run(HOOKS["chat.message"], { session_id: current, prompt: "" }, directory)
      if (text) await prompt(current, text)
    }, SETTLE_MS)
  }
  // Every mailbox this pane's hooks read is watched: its sub-seat too, made by a first send to
  // it after opencode started. hail names them in JSON (`whoami --json`), whatever the paths hold.
  const follow = (seats, name) => {
    if (watching.has(name)) return
    try {
      watch(join(seats, name), wake)
    } catch {
      return
    }
    watching.add(name)
    // A mailbox made after the start may hold a mark that came before its watch.
    if (existsSync(join(seats, name, "wake"))) wake("rename", "wake")
  }
  let located // the pane's mailbox directory, where the gauge record goes
  const where = new Promise((resolve) => (located = resolve))
  run(["whoami", "--json"], undefined, directory).then((out) => {
    let who
    try {
      who = JSON.parse(out)
    } catch {
      located("")
      return
    }
    const seats = who?.seats
    const names = who?.mailboxes
    const dir = typeof seats === "string" && typeof who?.mailbox === "string" ? join(seats, who.mailbox) : ""
    if (dir) gaugePath = join(dir, GAUGE + process.pid)
    located(dir)
    if (typeof seats !== "string" || !Array.isArray(names)) return
    try {
      watch(seats, (_kind, name) => {
        if (names.includes(String(name))) follow(seats, String(name))
      })
    } catch {}
    names.forEach((name) => follow(seats, name))
  })

  // The gauge: a reply's figures when it is complete, the session's summed over every reply it
  // has (listed from opencode once, so a resumed session counts its earlier replies too).
  const windows = new Map() // "<provider>/<model>" → its window, as chat.params gave it
  const sessions = new Map() // session → Promise of Map(reply id → figures), null if not listed
  const latest = new Map() // session → its newest complete reply
  let pruned = false
  const repliesOf = (id) => {
    if (!sessions.has(id)) {
      const listed = client.session
        .messages({ path: { id } })
        .then((got) => {
          const all = new Map()
          for (const m of got?.data || []) if (isReply(m?.info)) all.set(m.info.id, figures(m.info))
          return all
        })
        .catch(() => {
          sessions.delete(id) // asked again at the next reply
          return null
        })
      sessions.set(id, listed)
    }
    return sessions.get(id)
  }
  const gauge = async (info) => {
    const id = info.sessionID
    if (await isChild(id)) return
    const dir = await where
    if (!dir || !existsSync(dir)) return // the mailbox is made by hail's hooks, never here
    const all = await repliesOf(id)
    if (all) all.set(info.id, figures(info))
    const before = latest.get(id)
    if (!before || (before.time?.completed || 0) <= info.time.completed) latest.set(id, info)
    if (!pruned) {
      pruned = true
      prune(dir)
    }
    const newest = latest.get(id)
    const window = windows.get(`${newest.providerID}/${newest.modelID}`)
    record(dir, gaugeText(id, newest, window, all))
  }

  return {
    event: async ({ event }) => {
      const props = event.properties || {}
      const info = props.info || {}
      if (event.type === "message.updated") {
        if (isReply(info) && info.sessionID) await gauge(info).catch(() => {})
        return
      }
      if ((event.type === "session.created" || event.type === "session.updated") && info.parentID) {
        children.add(info.id)
        return
      }
      if (event.type === "session.status" && props.sessionID) {
        if (props.status?.type === "idle") busy.delete(props.sessionID)
        else busy.add(props.sessionID)
        return
      }
      if (event.type !== "session.idle" || !props.sessionID) return
      const id = props.sessionID
      busy.delete(id)
      if (await isChild(id)) return
      current = id
      const text = await run(HOOKS["session.idle"], { session_id: id }, directory)
      if (text) await prompt(id, text)
    },
    "chat.message": async (input, output) => {
      const id = input.sessionID
      if (!id || (await isChild(id))) return
      current = id
      busy.add(id)
      const parts = output.parts || []
      const said = parts.filter((p) => p.type === "text").map((p) => p.text)
      const texts = []
      if (!briefed.has(id)) {
        briefed.add(id)
        const standing = await brief
        brief = run(HOOKS["session.start"], undefined, directory) // for the next new session
        if (standing) texts.push(standing)
      }
      const prompted = said.join("\n")
      // A wake's own prompt carries its mail: no second hail run before the model sees it (mail
      // filed meanwhile rides the next tool call or idle).
      if (!woken.delete(prompted)) {
        const payload = { session_id: id, prompt: prompted, hook_event_name: "chat.message" }
        const mail = await run(HOOKS["chat.message"], payload, directory)
        if (mail) texts.push(mail)
      }
      const last = parts.map((p) => p.id || "").sort().pop() || "prt_"
      texts.forEach((text, n) => {
        parts.push({
          id: `${last}hail${n}`,
          sessionID: id,
          messageID: output.message?.id,
          type: "text",
          text,
          synthetic: true,
        })
      })
    },
    "chat.params": async (input) => {
      const model = input?.model
      const window = model?.limit?.context
      if (model && Number.isFinite(window) && window > 0) windows.set(`${model.providerID}/${model.id}`, window)
    },
    "tool.execute.after": async (input, output) => {
      const id = input.sessionID
      const payload = { session_id: id, tool_name: input.tool, hook_event_name: "tool.execute.after" }
      if (!id || (await isChild(id))) payload.agent_id = id || "?"
      const mail = await run(HOOKS["tool.execute.after"], payload, directory)
      if (mail && typeof output.output === "string") output.output += "\n\n" + mail
    },
  }
}

// A complete reply: an assistant message whose call ended (its tokens and cost are final).
function isReply(info) {
  return info?.role === "assistant" && typeof info.id === "string" && Boolean(info.time?.completed)
}

function count(n) {
  const value = Math.round(Number(n))
  return Number.isFinite(value) && value > 0 ? value : 0
}

// A reply's tokens as opencode counts them: `input` is the part of the prompt read fresh.
function figures(info) {
  const t = info.tokens || {}
  const cost = Number(info.cost)
  return {
    input: count(t.input),
    "cache-read": count(t.cache?.read),
    "cache-write": count(t.cache?.write),
    output: count(t.output),
    reasoning: count(t.reasoning),
    cost: Number.isFinite(cost) && cost > 0 ? cost : 0,
  }
}

function line(key, value) {
  return `${key}: ${String(value).replace(/[\r\n]/g, " ")}\n`
}

// The record hail reads (src/hail/gauge/opencode.py): the newest reply, the window when
// chat.params gave it, and the session's totals when opencode listed its replies.
function gaugeText(id, info, window, all) {
  const last = figures(info)
  let text = line("session", id) + line("model", `${info.providerID}/${info.modelID}`)
  for (const key of ["input", "cache-read", "cache-write", "output", "reasoning"]) text += line(key, last[key])
  if (window) text += line("window", count(window))
  if (all) {
    const sum = { input: 0, "cache-read": 0, "cache-write": 0, output: 0, reasoning: 0, cost: 0 }
    for (const reply of all.values()) for (const key of Object.keys(sum)) sum[key] += reply[key]
    for (const key of Object.keys(sum)) text += line(`session-${key}`, key === "cost" ? sum[key] : count(sum[key]))
    text += line("replies", all.size)
  }
  return text + line("time", Math.floor(Date.now() / 1000))
}

// Written whole and renamed into place, 0600, so a reader never sees half a record.
function record(dir, text) {
  const file = join(dir, GAUGE + process.pid)
  const tmp = join(dir, `.${GAUGE}${process.pid}.tmp`)
  try {
    unlinkSync(tmp)
  } catch {}
  try {
    writeFileSync(tmp, text, { mode: 0o600, flag: "wx" })
    renameSync(tmp, file)
  } catch {
    try {
      unlinkSync(tmp)
    } catch {}
  }
}

// The records of opencode processes that ended are dropped once, when this one first writes.
function prune(dir) {
  let names = []
  try {
    names = readdirSync(dir)
  } catch {
    return
  }
  for (const name of names) {
    const pid = Number(name.slice(GAUGE.length))
    if (!name.startsWith(GAUGE) || !Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue
    try {
      process.kill(pid, 0)
    } catch (e) {
      if (e?.code === "ESRCH")
        try {
          unlinkSync(join(dir, name))
        } catch {}
    }
  }
}
