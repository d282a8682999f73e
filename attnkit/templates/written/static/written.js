// The grade-by-question page: keyboard first. Every change is a POST that names the versions
// of the answers the TA saw; its answer carries the parts of the page the step changed (the
// groups, the progress), rendered (and escaped) by the server, which the page swaps in, so
// nothing here builds HTML from a student's text. The poll brings the rest: the groups whose
// data-sig differs from the server's.
(() => {
  "use strict";
  const meta = (name) => document.querySelector(`meta[name="${name}"]`).content;
  const content = document.getElementById("content");
  const url = content.dataset.url;
  const live = document.getElementById("live");
  const alertBox = document.getElementById("alert");
  const dialog = document.getElementById("move-dialog");
  let selection = null; // {id, positions: Set} for the focused group or answer
  let moving = null; // the student whose answer the move dialog moves

  const say = (text) => { live.textContent = text; };
  const warn = (text) => { alertBox.textContent = text; };
  const stamp = () => document.getElementById("state").dataset.stamp;
  const focusables = () => [...content.querySelectorAll("[data-focus]")];
  const current = () => document.activeElement && document.activeElement.closest
    ? document.activeElement.closest("[data-focus]") : null;
  const answersOf = (el) => el.matches(".answer") ? [el] : [...el.querySelectorAll(".answer")];
  const byId = (id) => focusables().find((el) => el.dataset.id === id);
  const typing = (el) => el && el.closest && el.closest("input, textarea, select, button, dialog");

  // every request names the XSRF token, GETs too: a hub's grading service takes a cookie
  // login for a fetch() only with it (JupyterHub 4.1+), and sends it to log in again if not
  const xsrf = () => ({"X-XSRFToken": meta("attnkit-xsrf")});

  async function post(action, body) {
    const response = await fetch(`${url}/${action}`, {
      method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json", ...xsrf()},
      body: JSON.stringify(body),
    });
    const data = await response.json().catch(() => ({error: response.statusText}));
    return {ok: response.ok, status: response.status, data};
  }

  const groupsBox = () => document.getElementById("groups");
  const groupOf = (key) => [...groupsBox().querySelectorAll(":scope > .group")]
    .find((g) => g.dataset.key === key);
  // what the page shows as held, for the server to send the groups whose holder changed
  const held = () => Object.fromEntries([...groupsBox().querySelectorAll(":scope > .group")]
    .filter((g) => g.dataset.held).map((g) => [g.dataset.key, g.dataset.held]));

  function parse(html) {
    const template = document.createElement("template");
    template.innerHTML = html;
    return template.content.firstElementChild;
  }

  // swap in what the server sent: groups (key -> HTML), their order if given, the progress
  // and the rubric; the focused group or answer keeps the focus, by its id
  function patch(data, focusId) {
    const was = current();
    const keep = focusId || (was && was.dataset.id);
    let lost = false;
    for (const [key, html] of Object.entries(data.groups || {})) {
      const old = groupOf(key);
      const fresh = parse(html);
      if (old) {
        lost = lost || old.contains(was);
        old.replaceWith(fresh);
      } else {
        groupsBox().append(fresh);
      }
    }
    if (data.order) {
      const wanted = new Set(data.order);
      groupsBox().querySelectorAll(":scope > .group").forEach((g) => {
        if (!wanted.has(g.dataset.key)) { lost = lost || g.contains(was); g.remove(); }
      });
      let at = groupsBox().querySelector(":scope > .group");
      for (const key of data.order) {
        const g = groupOf(key);
        if (!g) { continue; }
        if (g !== at) { groupsBox().insertBefore(g, at); } else { at = at.nextElementSibling; }
      }
      document.getElementById("group-count").textContent = String(data.order.length);
    }
    if (data.progress) { content.querySelector(".progress").replaceWith(parse(data.progress)); }
    if (data.rubric) { content.querySelector(".rubric").replaceWith(parse(data.rubric)); }
    if (data.stamp) { document.getElementById("state").dataset.stamp = data.stamp; }
    if (lost || focusId) { selection = null; }
    const el = keep && byId(keep);
    if (el && (lost || focusId)) { focus(el); } else if (el && el === current()) { show(el); }
  }

  // the whole page against the server's: only what differs comes back
  async function sync(focusId) {
    const have = Object.fromEntries([...groupsBox().querySelectorAll(":scope > .group")]
      .map((g) => [g.dataset.key, g.dataset.sig]));
    const result = await post("changes",
      {have, rubric: content.querySelector(".rubric").dataset.sig});
    if (!result.ok) { warn(`Could not reload the answers: ${result.status}`); return; }
    patch(result.data, focusId);
  }

  function focus(el) {
    el.focus({preventScroll: true});
    el.scrollIntoView({block: "nearest"});
    show(el);
  }

  function common(el) {
    const sets = answersOf(el).map((a) => new Set(a.dataset.items.split(" ").filter(Boolean)));
    return sets.length ? [...sets[0]].filter((p) => sets.every((s) => s.has(p))) : [];
  }

  function selected(el) {
    if (!selection || selection.id !== el.dataset.id) {
      selection = {id: el.dataset.id, positions: new Set(common(el)), touched: new Set()};
    }
    return selection.positions;
  }

  function show(el) {
    content.querySelectorAll("[data-selection]").forEach((p) => { p.textContent = ""; });
    const chosen = [...selected(el)].sort();
    document.querySelectorAll(".item").forEach((li) => {
      li.classList.toggle("chosen", chosen.includes(li.dataset.position));
    });
    const label = el.querySelector(":scope > [data-selection]");
    const what = el.matches(".answer") ? "this answer" : `all ${answersOf(el).length} answers`;
    const text = chosen.length ? `Items ${chosen.join(", ")} selected for ${what}`
      : `No item selected for ${what}`;
    label.textContent = selection.touched.size ? `${text}: Enter applies.` : text + ".";
  }

  function step(delta) {
    const all = focusables();
    const at = all.indexOf(current());
    const next = all[at < 0 ? 0 : Math.max(0, Math.min(all.length - 1, at + delta))];
    if (next) { focus(next); }
  }

  function toggle(position) {
    const el = current();
    if (!el) { say("Press n or an arrow key to choose a group first."); return; }
    const chosen = selected(el);
    if (!content.querySelector(`.item[data-position="${position}"]`)) {
      say(`There is no rubric item ${position}.`); return;
    }
    chosen.has(position) ? chosen.delete(position) : chosen.add(position);
    selection.touched.add(position);
    show(el);
  }

  async function apply() {
    const el = current();
    if (!el) { return; }
    const chosen = selected(el);
    const touched = [...selection.touched];
    if (!touched.length) { say("Select or unselect a rubric item with 1-9 first."); return; }
    // only the items the TA toggled change; others stay as each answer has them
    const seen = Object.fromEntries(answersOf(el).map((a) => [a.dataset.student,
      a.dataset.version]));
    const result = await post("apply", {seen, held: held(),
      add: touched.filter((p) => chosen.has(p)).map(Number),
      remove: touched.filter((p) => !chosen.has(p)).map(Number)});
    if (result.data.groups) { patch(result.data, el.dataset.id); }
    if (result.status === 409) {
      warn("Not saved: graded by someone else since you loaded it. "
           + result.data.changed.join("; ") + ". The page now shows their grades.");
    } else if (!result.ok) {
      warn(`Not saved: ${result.data.error}`);
    } else {
      warn("");
      say(`Saved: ${result.data.changed.length} answers changed`
          + (result.data.kept.length ? `, ${result.data.kept.length} hand scores kept.` : "."));
    }
    if (!result.data.groups) { await sync(el.dataset.id); }
  }

  async function next() {
    const result = await post("next", {held: held()});
    if (!result.ok) { warn(`No next group: ${result.data.error}`); return; }
    if (result.data.key === null) {
      patch(result.data);
      say("Nothing left to grade that another TA is not holding.");
      return;
    }
    if (!groupOf(result.data.key)) { await sync(); } // a group the page does not have yet
    patch(result.data, result.data.key);
    const el = byId(result.data.key);
    say(el ? `Group ${el.dataset.number} is yours to grade.` : "A group is yours to grade.");
  }

  async function move(student, key) {
    const result = await post("move", {student, key});
    if (!result.ok) { warn(`Not moved: ${result.data.error}`); return; }
    await sync(`answer-${student}`);
    say(key.startsWith("a-") ? `${student}'s answer is now graded alone.`
      : `${student}'s answer moved.`);
  }

  function openMove(el) {
    if (!el || !el.matches(".answer")) { say("Choose an answer (→) to move it."); return; }
    moving = el.dataset.student;
    const select = document.getElementById("move-target");
    select.replaceChildren(...[...content.querySelectorAll(".group")]
      .filter((g) => g.dataset.key.startsWith("g-")).map((g) => {
        const option = document.createElement("option");
        option.value = g.dataset.key;
        option.textContent = `Group ${g.dataset.number}`;
        option.selected = g.contains(el);
        return option;
      }));
    dialog.showModal();
    select.focus();
  }

  document.getElementById("move-form").addEventListener("submit", () => {
    const key = document.getElementById("move-target").value;
    if (moving && key) { move(moving, key); }
  });
  document.getElementById("move-target").addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      document.getElementById("move-form").requestSubmit();
    }
  });
  document.getElementById("move-cancel").addEventListener("click", () => dialog.close());

  content.addEventListener("submit", async (event) => {
    const form = event.target.closest(".item-form");
    if (!form) { return; }
    event.preventDefault();
    const fields = new FormData(form);
    const body = {id: form.dataset.id ? Number(form.dataset.id) : null,
      text: fields.get("text"), points: fields.get("points"), comment: fields.get("comment")};
    if (event.submitter && event.submitter.name === "remove") { body.remove = true; }
    const result = await post("item", body);
    if (!result.ok) { warn(`Rubric not changed: ${result.data.error}`); return; }
    warn("");
    say(body.id ? `Rubric item saved; ${(result.data.changed || []).length} answers re-scored.`
      : `Rubric item ${result.data.position} added.`);
    await sync();
  });

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) { return; }
    const el = current();
    const keys = {
      ArrowDown: () => step(1), ArrowUp: () => step(-1),
      ArrowRight: () => { const a = el && el.querySelector(".answer"); if (a) { focus(a); } },
      ArrowLeft: () => { const g = el && el.parentElement.closest(".group"); if (g) { focus(g); } },
      Enter: apply, n: next,
      s: () => el && el.matches(".answer") ? move(el.dataset.student, "a-")
        : say("Choose an answer (→) to grade it alone."),
      m: () => openMove(el),
      Escape: () => { selection = null; if (el) { show(el); } },
    };
    if (/^[1-9]$/.test(event.key)) {
      event.preventDefault();
      toggle(event.key);
    } else if (keys[event.key]) {
      event.preventDefault();
      keys[event.key]();
    }
  });

  content.addEventListener("focusin", (event) => {
    const el = event.target.closest("[data-focus]");
    if (el && event.target === el) { show(el); }
  });

  const poll = Number(meta("attnkit-poll"));
  if (poll > 0) {
    setInterval(async () => {
      if ((selection && selection.touched.size) || typing(document.activeElement)
          || dialog.open) { return; }
      const response = await fetch(`${url}/stamp`, {credentials: "same-origin",
        headers: xsrf()});
      if (response.ok && (await response.json()).stamp !== stamp()) { await sync(); }
    }, poll * 1000);
  }
})();
