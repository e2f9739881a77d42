/* SPDX-License-Identifier: GPL-2.0-or-later */
/* phcd's Cockpit page: GetManagedObjects once per owner of org.phcd1, then its signals (as
 * phcd-exporter does); the write methods go to phcd, which authorizes them itself (root, or
 * polkit's org.phcd1.manage): with superuser "try" Cockpit's administrative access decides
 * whether the call comes from root or from the logged-in user. */
"use strict";

(function () {
    const NAME = "org.phcd1";
    const ROOT = "/org/phcd1";
    const CHART_SAMPLES = 300; /* five minutes of offsets at one a second */
    const SERVO_CLASS = { locked: "servo-locked", unlocked: "bad", holdover: "degraded" };

    let client = null;
    const model = { up: false, owner: null, manager: {}, instances: {}, ports: {} };
    const history = {}; /* instance path -> [[time ms, offset ns], ...] */

    function unvariant(dict) {
        const out = {};
        for (const k in dict)
            out[k] = dict[k].v;
        return out;
    }

    function el(tag, attrs, text) {
        const e = document.createElement(tag);
        for (const k in attrs || {})
            e.setAttribute(k, attrs[k]);
        if (text !== undefined)
            e.textContent = text;
        return e;
    }

    function fmtNs(ns) {
        if (ns === undefined)
            return "";
        const a = Math.abs(ns);
        if (a >= 1e9)
            return (ns / 1e9).toFixed(3) + " s";
        if (a >= 1e6)
            return (ns / 1e6).toFixed(3) + " ms";
        if (a >= 1e4)
            return (ns / 1e3).toFixed(2) + " µs";
        return ns + " ns";
    }

    function message(text, cls) {
        const m = document.getElementById("message");
        m.textContent = text;
        m.className = cls || "";
    }

    function instanceName(path) {
        const i = model.instances[path];
        return i ? i.Name : "";
    }

    /* A method of phcd, its outcome on the page: phcd's error name and message when refused. */
    function invoke(path, iface, method, args, what) {
        message(what + "…", "");
        client.call(path, iface, method, args || [])
                .then(() => message(what + ": done", "done"))
                .catch(ex => message(what + ": refused: " + (ex.message || ex.problem || ex) +
                                     (ex.name ? " (" + ex.name + ")" : ""), "error"));
    }

    /* ---- instances ---- */

    function instanceRow(path) {
        const tbody = document.querySelector("#instances tbody");
        let tr = tbody.querySelector('tr[data-path="' + CSS.escape(path) + '"]');
        if (tr)
            return tr;
        tr = el("tr", { "data-path": path });
        for (const f of ["Name", "Domain", "GrandmasterIdentity", "StepsRemoved", "OffsetFromMaster",
            "OffsetAge", "MeanPathDelay", "FrequencyAdjustment", "OffsetStatistics", "ServoState",
            "Synchronized", "Ready", "Health"])
            tr.appendChild(el("td", { "data-field": f }));
        for (const p of ["Priority1", "Priority2"]) {
            const td = el("td", { "data-field": p });
            const input = el("input", { type: "number", min: "0", max: "255", "aria-label": p });
            const button = el("button", { type: "button", "data-action": "Set" + p }, "Set");
            button.addEventListener("click", () => {
                const v = Number(input.value);
                if (input.value === "" || !Number.isInteger(v) || v < 0 || v > 255) {
                    message(p + " must be a whole number from 0 to 255", "error");
                    return;
                }
                invoke(path, "org.phcd1.Instance", "Set" + p, [v],
                       "Set" + p + " " + v + " on " + instanceName(path));
            });
            td.appendChild(el("span", { class: "value" }));
            td.appendChild(document.createTextNode(" "));
            td.appendChild(input);
            td.appendChild(button);
            tr.appendChild(td);
        }
        tbody.appendChild(tr);
        return tr;
    }

    function setCell(tr, field, text, cls, value) {
        const td = tr.querySelector('td[data-field="' + field + '"]');
        const target = td.querySelector(".value") || td;
        target.textContent = text;
        if (cls !== undefined)
            target.className = cls;
        if (value !== undefined)
            td.setAttribute("data-value", String(value));
    }

    function renderInstance(path) {
        const i = model.instances[path];
        const tr = instanceRow(path);
        tr.setAttribute("data-name", i.Name || "");
        setCell(tr, "Name", i.Name || path);
        setCell(tr, "Domain", i.Domain === undefined ? "" : String(i.Domain));
        const gm = i.GrandmasterIdentity || "";
        let gmText = gm;
        if (gm && (i.IsGrandmaster || gm === i.ClockIdentity))
            gmText += i.IsGrandmaster === false ? " (this clock, not serving)" : " (this clock)";
        if (i.GrandmasterClockClass !== undefined)
            gmText += "\nclass " + i.GrandmasterClockClass + ", priority " + i.GrandmasterPriority1 +
                      "/" + i.GrandmasterPriority2;
        /* clockClass below 128 or masterOnly everywhere: it never follows another clock. */
        if (i.ConfiguredGrandmaster)
            gmText += "\ngrandmaster by configuration";
        setCell(tr, "GrandmasterIdentity", gmText);
        setCell(tr, "StepsRemoved", i.StepsRemoved === undefined ? "" : String(i.StepsRemoved));
        /* OffsetTimestamp 0: phcd has no sample yet, and the 0 ns beside it means nothing. */
        const none = i.OffsetTimestamp === 0;
        setCell(tr, "OffsetFromMaster", none ? "no measurement" : fmtNs(i.OffsetFromMaster), "num",
                none ? "" : i.OffsetFromMaster);
        setCell(tr, "MeanPathDelay", none ? "" : fmtNs(i.MeanPathDelay), "num", i.MeanPathDelay);
        setCell(tr, "FrequencyAdjustment",
                none || i.FrequencyAdjustment === undefined ? "" : i.FrequencyAdjustment.toFixed(1) + " ppb",
                "num", i.FrequencyAdjustment);
        setAge(tr, i);
        setCell(tr, "OffsetStatistics", i.OffsetStatisticsTimestamp
            ? "rms " + fmtNs(i.OffsetStatisticsRMS) + ", max " + fmtNs(i.OffsetStatisticsMax) +
              "\n" + i.OffsetStatisticsCount + " offsets in " + (i.OffsetStatisticsWindowUSec / 1e6).toFixed(1) + " s"
            : "", "num", i.OffsetStatisticsRMS);
        /* The clock mode (holdover) under the servo: what the instance may announce of itself. */
        const mode = i.ClockMode === undefined ? "" : "\nclock mode " + i.ClockMode +
            (i.EstimatedTimeError > 0 ? ", est. error " + fmtNs(i.EstimatedTimeError) : "") +
            /* A grandmaster's own time source (time_source): which, good or not, and why. */
            (i.ReferenceSource && i.ReferenceSource !== "none"
                ? "\ntime source " + i.ReferenceSource + " " + (i.ReferenceOk ? "ok" : "not ok") +
                  (i.ReferenceReason ? ": " + i.ReferenceReason : "")
                : "") +
            /* clock_servo refclock_sock: chronyd is the servo, fed at RefclockAddress. */
            (i.RefclockAddress
                ? "\nchronyd refclock " + i.RefclockAddress + ": " + i.RefclockState +
                  (i.RefclockReason ? ", " + i.RefclockReason : "") +
                  (i.RefclockError ? " (errno " + -i.RefclockError + ")" : "")
                : "");
        setCell(tr, "ServoState", (i.ServoState || "") + mode, SERVO_CLASS[i.ServoState] || "");
        setCell(tr, "Synchronized", i.Synchronized ? "yes" : "no", i.Synchronized ? "ok" : "bad");
        /* phcd's own verdict (Ready, ReadyReason), as phcctl wait-sync and the exporter use it. */
        setCell(tr, "Ready", i.Ready === undefined ? "—" : (i.Ready ? "yes" : "no") +
                (i.ReadyReason ? "\n" + i.ReadyReason : ""), i.Ready ? "ok" : "bad", i.Ready);
        setHealth(tr.querySelector('td[data-field="Health"]'), i.Health, i.HealthReasons);
        setCell(tr, "Priority1", String(i.Priority1 === undefined ? "" : i.Priority1));
        setCell(tr, "Priority2", String(i.Priority2 === undefined ? "" : i.Priority2));
    }

    /* Health and its reasons' sentences (phcd's HealthReasons), when this phcd has them. */
    function setHealth(td, health, reasons) {
        td.textContent = "";
        td.setAttribute("data-value", health || "");
        if (typeof health !== "string") {
            td.textContent = "—";
            return;
        }
        td.appendChild(el("span", { class: health }, health));
        for (const [code, sentence] of reasons || [])
            td.appendChild(el("div", { class: "reason", "data-code": code }, sentence));
    }

    /* How old the last offset is, from OffsetTimestamp (µs since the epoch); updated every second. */
    function setAge(tr, i) {
        const td = tr.querySelector('td[data-field="OffsetAge"]');
        if (!i.OffsetTimestamp) {
            td.textContent = i.OffsetTimestamp === 0 ? "never" : "";
            td.className = "num";
            return;
        }
        const age = Math.max(0, Date.now() / 1000 - i.OffsetTimestamp / 1e6);
        td.textContent = age < 60 ? age.toFixed(1) + " s ago" : Math.round(age / 60) + " min ago";
        td.className = "num" + (age > 10 ? " bad" : "");
        td.setAttribute("data-value", age.toFixed(3));
    }

    /* ---- the offset chart ---- */

    function recordOffset(path, ns, stamp) {
        const h = history[path] || (history[path] = []);
        /* One point per sample: phcd's OffsetTimestamp (µs) when it has it. */
        if (stamp === 0 || (stamp && h.length && h[h.length - 1][2] === stamp))
            return;
        h.push([stamp ? stamp / 1000 : Date.now(), ns, stamp]);
        if (h.length > CHART_SAMPLES)
            h.splice(0, h.length - CHART_SAMPLES);
        drawChart(path);
    }

    function chartCanvas(path) {
        const box = document.getElementById("charts");
        let c = box.querySelector('canvas[data-path="' + CSS.escape(path) + '"]');
        if (c)
            return c;
        const div = el("div", { class: "chart" });
        const title = el("h3", {}, "Offset from master: " + (instanceName(path) || path));
        c = el("canvas", { "data-path": path, width: "560", height: "180",
            "aria-label": "Offset from master of " + instanceName(path) });
        div.appendChild(title);
        div.appendChild(c);
        box.appendChild(div);
        return c;
    }

    function drawChart(path) {
        const c = chartCanvas(path);
        const h = history[path] || [];
        const ctx = c.getContext("2d");
        const W = c.width, H = c.height, L = 70, R = 8, T = 8, B = 20;
        c.setAttribute("data-samples", String(h.length));
        c.setAttribute("data-name", instanceName(path));
        ctx.clearRect(0, 0, W, H);
        let max = 1;
        for (const s of h)
            max = Math.max(max, Math.abs(s[1]));
        max *= 1.1;
        const y = v => T + (H - T - B) * (0.5 - v / (2 * max));
        ctx.font = "11px sans-serif";
        ctx.fillStyle = "#6a6e73";
        ctx.strokeStyle = "#d2d2d2";
        /* One unit for every tick, the one of the largest. */
        const [div, unit] = max >= 1e9 ? [1e9, "s"] : max >= 1e6 ? [1e6, "ms"] : max >= 1e4 ? [1e3, "µs"] : [1, "ns"];
        for (const v of [max, max / 2, 0, -max / 2, -max]) {
            ctx.beginPath();
            ctx.moveTo(L, y(v));
            ctx.lineTo(W - R, y(v));
            ctx.stroke();
            ctx.fillText((v / div).toFixed(div === 1 ? 0 : 2) + " " + unit, 4, y(v) + 4);
        }
        ctx.fillText("last " + h.length + " samples", L, H - 5);
        if (h.length < 2)
            return;
        const t0 = h[0][0], t1 = h[h.length - 1][0];
        const x = t => L + (W - L - R) * (t1 === t0 ? 1 : (t - t0) / (t1 - t0));
        ctx.strokeStyle = "#0066cc";
        ctx.lineWidth = 1.5;
        ctx.beginPath();
        h.forEach((s, n) => (n ? ctx.lineTo(x(s[0]), y(s[1])) : ctx.moveTo(x(s[0]), y(s[1]))));
        ctx.stroke();
        ctx.lineWidth = 1;
    }

    /* ---- ports ---- */

    function portRow(path) {
        const tbody = document.querySelector("#ports tbody");
        let tr = tbody.querySelector('tr[data-path="' + CSS.escape(path) + '"]');
        if (tr)
            return tr;
        tr = el("tr", { "data-path": path });
        for (const f of ["Interface", "Instance", "State", "Enabled", "Transport", "TimestampingMode",
            "PhcIndex", "LinkUp", "Intervals", "Unicast", "WorkerPID", "Restarts", "LastError"])
            tr.appendChild(el("td", { "data-field": f }));
        const td = el("td", { "data-field": "Actions" });
        for (const m of ["Enable", "Disable", "Restart"]) {
            const b = el("button", { type: "button", "data-action": m }, m);
            b.addEventListener("click", () => invoke(path, "org.phcd1.Port", m, [],
                                                     m + " " + (model.ports[path].Interface || path)));
            td.appendChild(b);
        }
        tr.appendChild(td);
        tbody.appendChild(tr);
        return tr;
    }

    function renderPort(path) {
        const p = model.ports[path];
        const tr = portRow(path);
        tr.setAttribute("data-interface", p.Interface || "");
        setCell(tr, "Interface", p.Interface || path);
        setCell(tr, "Instance", instanceName(p.Instance));
        setCell(tr, "State", p.State || "", "state-" + p.State);
        setCell(tr, "Enabled", p.Enabled ? "yes" : "no");
        setCell(tr, "Transport", [p.NetworkTransport, p.DelayMechanism].filter(x => x).join(", "));
        setCell(tr, "TimestampingMode", p.TimestampingMode || "");
        setCell(tr, "PhcIndex", p.PhcIndex === undefined ? "" : p.PhcIndex < 0 ? "none" : "/dev/ptp" + p.PhcIndex);
        setCell(tr, "LinkUp", p.LinkUp ? "up" : "down", p.LinkUp ? "" : "bad");
        const secs = n => (n === undefined ? "?" : Math.pow(2, n) + " s");
        setCell(tr, "Intervals", p.LogSyncInterval === undefined ? ""
            : "sync " + secs(p.LogSyncInterval) + ", announce " + secs(p.LogAnnounceInterval) +
              (p.AnnounceReceiptTimeoutUSec ? "\ntimeout " + p.AnnounceReceiptTimeoutUSec / 1e6 + " s" : ""));
        setCell(tr, "WorkerPID", p.WorkerPID ? String(p.WorkerPID) : "none");
        setCell(tr, "Restarts", p.Restarts === undefined ? "" : String(p.Restarts), "num");
        setCell(tr, "LastError", p.LastError || "", p.LastError ? "bad" : "");
    }

    /* UnicastTable a(ssssnu) (Get only, not signalled): a small table in the port's row. */
    function renderUnicast(path, rows) {
        const td = portRow(path).querySelector('td[data-field="Unicast"]');
        td.textContent = "";
        if (!rows.length)
            return;
        const t = el("table", { class: "unicast" });
        const head = el("tr");
        for (const h of ["Peer", "Role", "Message", "State", "Period", "Left"])
            head.appendChild(el("th", {}, h));
        t.appendChild(head);
        for (const [peer, role, msg, state, period, left] of rows) {
            const tr = el("tr", { "data-peer": peer, "data-message": msg });
            for (const [f, v] of [["peer", peer], ["role", role], ["message", msg], ["state", state],
                ["period", Math.pow(2, period) + " s"], ["left", state === "granted" ? left + " s" : ""]])
                tr.appendChild(el("td", { "data-unicast": f }, v));
            t.appendChild(tr);
        }
        td.appendChild(t);
    }

    function fetchUnicast() {
        for (const path in model.ports) {
            client.call(path, "org.freedesktop.DBus.Properties", "Get", ["org.phcd1.Port", "UnicastTable"])
                    .then(([v]) => {
                        if (model.ports[path])
                            renderUnicast(path, v.v);
                    })
                    .catch(() => {}); /* an older phcd without the property: no table */
        }
    }

    /* ---- daemon ---- */

    function renderManager() {
        const d = document.getElementById("daemon");
        if (!model.up) {
            d.textContent = "phcd is not running (org.phcd1 has no owner on the system bus)";
            d.className = "status down";
        } else {
            d.textContent = "phcd " + (model.manager.Version || "") + " is running";
            d.className = "status up";
        }
        const dl = document.getElementById("manager");
        dl.textContent = "";
        const m = model.manager;
        const rows = [
            ["Started", m.StartTimestamp ? new Date(m.StartTimestamp / 1000).toLocaleString() : ""],
            ["System clock follows", m.SystemClockInstance === undefined ? "" : m.SystemClockInstance || "nothing (phcd does not steer it)"],
            ["System clock synchronized", m.SystemClockSynchronized ? "yes" : "no"],
            ["Ready", m.Ready === undefined ? "" : (m.Ready ? "yes" : "no") + (m.ReadyReason ? ": " + m.ReadyReason : "")],
            ["Configuration", (m.ConfigFiles || []).join(", ")],
        ];
        if (model.up) {
            if (typeof m.Health === "string") {
                dl.appendChild(el("dt", {}, "Health"));
                const dd = el("dd", { "data-field": "Health" });
                setHealth(dd, m.Health, m.HealthReasons);
                dl.appendChild(dd);
            }
            for (const [k, v] of rows) {
                dl.appendChild(el("dt", {}, k));
                dl.appendChild(el("dd", { "data-field": k }, v));
            }
        }
        document.getElementById("reload").disabled = !model.up;
    }

    function renderAll() {
        renderManager();
        document.querySelector("#instances tbody").textContent = "";
        document.querySelector("#ports tbody").textContent = "";
        document.getElementById("charts").textContent = "";
        for (const p in model.instances) {
            renderInstance(p);
            drawChart(p);
        }
        for (const p in model.ports)
            renderPort(p);
    }

    /* ---- org.phcd1 ---- */

    function setObject(path, iface, props) {
        if (iface === "org.phcd1.Instance") {
            const fresh = !model.instances[path];
            model.instances[path] = Object.assign(model.instances[path] || {}, props);
            if ("OffsetFromMaster" in props || "OffsetTimestamp" in props)
                recordOffset(path, model.instances[path].OffsetFromMaster,
                             model.instances[path].OffsetTimestamp);
            renderInstance(path);
            if (fresh) {
                for (const p in model.ports)
                    renderPort(p); /* their Instance column */
            }
        } else if (iface === "org.phcd1.Port") {
            model.ports[path] = Object.assign(model.ports[path] || {}, props);
            renderPort(path);
        } else if (iface === "org.phcd1.Manager") {
            Object.assign(model.manager, props);
            renderManager();
        }
    }

    function load() {
        client.call(ROOT, "org.freedesktop.DBus.ObjectManager", "GetManagedObjects", [])
                .then(([objects]) => {
                    model.instances = {};
                    model.ports = {};
                    model.up = true;
                    for (const k in history)
                        delete history[k];
                    renderAll();
                    for (const path in objects) {
                        for (const iface in objects[path])
                            setObject(path, iface, unvariant(objects[path][iface]));
                    }
                    return client.call(ROOT, "org.freedesktop.DBus.Properties", "GetAll",
                                       ["org.phcd1.Manager"]);
                })
                .then(([props]) => setObject(ROOT, "org.phcd1.Manager", unvariant(props)))
                .catch(ex => {
                    down();
                    if (ex.name !== "org.freedesktop.DBus.Error.ServiceUnknown" &&
                        ex.name !== "org.freedesktop.DBus.Error.NameHasNoOwner")
                        message("Reading org.phcd1: " + (ex.message || ex), "error");
                });
    }

    function down() {
        model.up = false;
        model.manager = {};
        model.instances = {};
        model.ports = {};
        renderAll();
    }

    function start() {
        client = cockpit.dbus(NAME, { bus: "system", superuser: "try" });
        client.addEventListener("owner", (ev, owner) => {
            model.owner = owner;
            if (owner)
                load();
            else
                down();
        });
        client.subscribe({ interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
            path_namespace: ROOT }, (path, iface, member, args) => {
            if (model.up)
                setObject(path, args[0], unvariant(args[1]));
        });
        client.subscribe({ interface: "org.freedesktop.DBus.ObjectManager", path: ROOT },
                         (path, iface, member, args) => {
                             if (!model.up)
                                 return;
                             if (member === "InterfacesAdded") {
                                 for (const i in args[1])
                                     setObject(args[0], i, unvariant(args[1][i]));
                             } else if (member === "InterfacesRemoved") {
                                 delete model.instances[args[0]];
                                 delete model.ports[args[0]];
                                 delete history[args[0]];
                                 renderAll();
                             }
                         });
        document.getElementById("reload").addEventListener("click", () =>
            invoke(ROOT, "org.phcd1.Manager", "Reload", [], "Reload"));
        window.setInterval(() => {
            for (const p in model.instances)
                setAge(instanceRow(p), model.instances[p]);
            if (model.up)
                fetchUnicast();
        }, 1000);
        load();
    }

    document.addEventListener("DOMContentLoaded", start);
}());
