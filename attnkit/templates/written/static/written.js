// The grade-by-question page: keyboard first. Every change is a POST that names the versions
// of the answers the TA saw; the page then reloads its content from the server, which renders
// (and escapes) everything, so nothing here builds HTML from a student's text.
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

  async function refresh(focusId) {
    const keep = focusId || (current() && current().dataset.id);
    const response = await fetch(`${url}?part=main`, {credentials: "same-origin",
      headers: xsrf()});
    if (!response.ok) { warn(`Could not reload the answers: ${response.status}`); return; }
    content.innerHTML = await response.text();
    selection = null;
    const el = keep && byId(keep);
    if (el) { focus(el); }
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
    const result = await post("apply", {seen,
      add: touched.filter((p) => chosen.has(p)).map(Number),
      remove: touched.filter((p) => !chosen.has(p)).map(Number)});
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
    await refresh(el.dataset.id);
  }

  async function next() {
    const result = await post("next", {});
    if (!result.ok) { warn(`No next group: ${result.data.error}`); return; }
    if (result.data.key === null) {
      await refresh();
      say("Nothing left to grade that another TA is not holding.");
      return;
    }
    await refresh(result.data.key);
    const el = byId(result.data.key);
    say(el ? `Group ${el.dataset.number} is yours to grade.` : "A group is yours to grade.");
  }

  async function move(student, key) {
    const result = await post("move", {student, key});
    if (!result.ok) { warn(`Not moved: ${result.data.error}`); return; }
    await refresh(`answer-${student}`);
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
    await refresh();
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
      if (response.ok && (await response.json()).stamp !== stamp()) { await refresh(); }
    }, poll * 1000);
  }
})();
