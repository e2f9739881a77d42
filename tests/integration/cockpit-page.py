#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Drive phcd's Cockpit page in headless Chromium (Selenium): the port's state, a changing
offset and its chart, Disable refused as an unprivileged user; as root Disable, Enable, Restart,
SetPriority1 and Reload done; a screenshot.

cockpit-page.py USER_URL ROOT_URL INTERFACE INSTANCE SCREENSHOT [SAMPLES]
SAMPLES: offsets in the chart before the screenshot is taken (default 8)."""
import json
import subprocess
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

user_url, root_url, ifname, instance, screenshot = sys.argv[1:6]
shot_samples = int(sys.argv[6]) if len(sys.argv) > 6 else 8


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def wait(what, fn, secs):
    """Poll fn until it returns something true; fail saying what was expected and what came."""
    deadline = time.monotonic() + secs
    last = None
    while time.monotonic() < deadline:
        try:
            last = fn()
            if last:
                return last
        except Exception as ex:  # the element may not be there yet
            last = repr(ex)
        time.sleep(0.1)
    fail(f"page: expected {what} within {secs} s, last: {last!r}")


def field(driver, table, key_attr, key, name):
    td = driver.find_element(
        By.CSS_SELECTOR, f'#{table} tr[{key_attr}="{key}"] td[data-field="{name}"]')
    return td


def port_field(driver, name):
    return field(driver, "ports", "data-interface", ifname, name).text


def message(driver):
    return driver.find_element(By.ID, "message").text


def busctl_enabled():
    out = subprocess.run(["busctl", "--system", "get-property", "org.phcd1",
                          f"/org/phcd1/port/{ifname}", "org.phcd1.Port", "Enabled"],
                         capture_output=True, text=True, check=True).stdout.strip()
    return out == "b true"


opts = webdriver.ChromeOptions()
for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1700,1200",
          "--disable-dev-shm-usage", "--no-first-run", "--disable-background-networking",
          "--disable-component-update", "--disable-sync", "--disable-default-apps",
          "--disable-extensions", "--metrics-recording-only", "--no-default-browser-check"]:
    opts.add_argument(a)
t0 = time.monotonic()
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
try:
    # As an unprivileged user: the page reads everything, the write methods are refused.
    driver.get(user_url)
    wait("'phcd ... is running'", lambda: "is running" in driver.find_element(By.ID, "daemon").text, 30)
    wait(f"port {ifname} SLAVE", lambda: port_field(driver, "State") == "SLAVE", 30)
    # The port's transport and delay mechanism, as phcd says them on the bus.
    want = ", ".join(subprocess.run(["busctl", "--system", "get-property", "org.phcd1",
                                     f"/org/phcd1/port/{ifname}", "org.phcd1.Port", prop],
                                    capture_output=True, text=True, check=True).stdout.split('"')[1]
                     for prop in ("NetworkTransport", "DelayMechanism"))
    wait(f"Transport {want!r}", lambda: port_field(driver, "Transport") == want, 10)
    print(f"ok: page: {ifname} transport {port_field(driver, 'Transport')!r}, as over busctl")
    offsets = set()

    def offsets_seen():
        td = field(driver, "instances", "data-name", instance, "OffsetFromMaster")
        offsets.add(td.get_attribute("data-value"))
        return len(offsets) >= 3
    wait("3 different offsets (PropertiesChanged)", offsets_seen, 15)
    canvas = driver.find_element(By.CSS_SELECTOR, f'#charts canvas[data-name="{instance}"]')
    wait("the chart fed with 3 samples", lambda: int(canvas.get_attribute("data-samples")) >= 3, 10)
    print(f"ok: page (unprivileged session): {ifname} SLAVE, offsets {sorted(offsets)} ns, "
          f"chart {canvas.get_attribute('data-samples')} samples")

    # Health and the offset's age, where phcd has them (the UX additions of its D-Bus API).
    intro = subprocess.run(["busctl", "--system", "introspect", "org.phcd1",
                            f"/org/phcd1/instance/{instance}", "org.phcd1.Instance"],
                           capture_output=True, text=True, check=True).stdout
    if any(line.startswith(".Health ") for line in intro.splitlines()):
        wait("instance health ok", lambda: field(driver, "instances", "data-name", instance,
                                                 "Health").get_attribute("data-value") == "ok", 15)
        age = wait("the offset's age under 5 s", lambda: (lambda a: a if a and float(a) < 5 else None)(
            field(driver, "instances", "data-name", instance, "OffsetAge").get_attribute("data-value")), 15)
        daemon = driver.find_element(By.CSS_SELECTOR, '#manager dd[data-field="Health"]')
        print(f"ok: page: health ok, offset measured {age} s ago, daemon health "
              f"{daemon.get_attribute('data-value')!r}")
    else:
        print("NOT CHECKED: health on the page (this phcd has no Instance.Health property)")
    # phcd's readiness verdict (Ready, ReadyReason), the one wait-sync and the exporter use.
    if any(line.startswith(".Ready ") for line in intro.splitlines()):
        ready = wait("instance ready (synchronized)", lambda: (lambda td: td.text if td.get_attribute(
            "data-value") == "true" and "synchronized" in td.text else None)(
            field(driver, "instances", "data-name", instance, "Ready")), 15)
        print(f"ok: page: Ready {ready!r}")
    else:
        print("NOT CHECKED: readiness on the page (this phcd has no Instance.Ready property)")

    # The other instances of test-cockpit.sh's configuration: gm the grandmaster by configuration
    # (ConfiguredGrandmaster), rc chronyd's refclock (RefclockState and its reason, from the bus).
    def instance_prop(name, prop):
        out = subprocess.run(["busctl", "--system", "--json=short", "get-property", "org.phcd1",
                              f"/org/phcd1/instance/{name}", "org.phcd1.Instance", prop],
                             capture_output=True, text=True, check=True).stdout
        return json.loads(out)["data"]
    if instance_prop("gm", "ConfiguredGrandmaster") is not True:
        fail("instance gm (masterOnly on its only port): expected ConfiguredGrandmaster true on the bus")
    wait("gm 'grandmaster by configuration'", lambda: "grandmaster by configuration" in field(
        driver, "instances", "data-name", "gm", "GrandmasterIdentity").text, 15)
    if "grandmaster by configuration" in field(driver, "instances", "data-name", instance,
                                               "GrandmasterIdentity").text:
        fail(f"instance {instance} (a slave of ptp4l) shown as grandmaster by configuration")
    state, reason = instance_prop("rc", "RefclockState"), instance_prop("rc", "RefclockReason")
    want = f"chronyd refclock {instance_prop('rc', 'RefclockAddress')}: {state}"
    if state not in ("idle", "refused"):
        fail(f"instance rc (no master, nobody at the socket): expected RefclockState idle or refused, got {state!r}")
    rc_servo = wait(f"rc's servo cell with {want!r}", lambda: (lambda t: t if want in t and reason in t else None)(
        field(driver, "instances", "data-name", "rc", "ServoState").text), 15)
    print(f"ok: page: gm grandmaster by configuration; rc {rc_servo.splitlines()[-1]!r}")

    driver.find_element(By.CSS_SELECTOR,
                        f'#ports tr[data-interface="{ifname}"] button[data-action="Disable"]').click()
    wait("Disable refused", lambda: "refused" in message(driver), 10)
    msg = message(driver)
    if "AccessDenied" not in msg:
        fail(f"Disable as an unprivileged user: expected AccessDenied, got {msg!r}")
    time.sleep(1)  # a Disable that went through would show within this second
    if port_field(driver, "Enabled") != "yes" or not busctl_enabled():
        fail(f"Disable was refused on the page but the port is disabled")
    print(f"ok: Disable as an unprivileged user refused: {msg!r}; {ifname} still enabled")

    # As root: the screenshot of a steady slave, then Disable works, Enable brings it back.
    driver.get(root_url)
    wait(f"port {ifname} SLAVE (root session)", lambda: port_field(driver, "State") == "SLAVE", 30)
    canvas = driver.find_element(By.CSS_SELECTOR, f'#charts canvas[data-name="{instance}"]')
    wait(f"{shot_samples} offsets in the chart for the screenshot",
         lambda: int(canvas.get_attribute("data-samples")) >= shot_samples, shot_samples + 20)
    driver.save_screenshot(screenshot)
    driver.find_element(By.CSS_SELECTOR,
                        f'#ports tr[data-interface="{ifname}"] button[data-action="Disable"]').click()
    wait("Disable done", lambda: message(driver).endswith(": done"), 10)
    wait(f"{ifname} DISABLED on the page", lambda: port_field(driver, "State") == "DISABLED" and
         port_field(driver, "Enabled") == "no", 10)
    if busctl_enabled():
        fail("the page shows DISABLED but phcd says Enabled true")
    print(f"ok: Disable as root: done, {ifname} DISABLED (Enabled false over busctl too)")
    driver.find_element(By.CSS_SELECTOR,
                        f'#ports tr[data-interface="{ifname}"] button[data-action="Enable"]').click()
    wait(f"{ifname} SLAVE again after Enable", lambda: port_field(driver, "State") == "SLAVE", 30)
    print(f"ok: Enable as root: {ifname} SLAVE again")
    pid = port_field(driver, "WorkerPID")
    driver.find_element(By.CSS_SELECTOR,
                        f'#ports tr[data-interface="{ifname}"] button[data-action="Restart"]').click()
    wait("Restart: a new worker", lambda: port_field(driver, "WorkerPID") not in (pid, "none"), 15)
    print(f"ok: Restart as root: worker {pid} -> {port_field(driver, 'WorkerPID')}")
    row = f'#instances tr[data-name="{instance}"] td[data-field="Priority1"]'
    driver.find_element(By.CSS_SELECTOR, row + " input").send_keys("77")
    driver.find_element(By.CSS_SELECTOR, row + ' button[data-action="SetPriority1"]').click()
    wait("Priority1 77 on the page",
         lambda: driver.find_element(By.CSS_SELECTOR, row + " .value").text == "77", 10)
    got = subprocess.run(["busctl", "--system", "get-property", "org.phcd1",
                          f"/org/phcd1/instance/{instance}", "org.phcd1.Instance", "Priority1"],
                         capture_output=True, text=True, check=True).stdout.strip()
    if got != "y 77":
        fail(f"SetPriority1 77 from the page: busctl says {got!r}")
    driver.find_element(By.ID, "reload").click()
    wait("Reload: done", lambda: message(driver) == "Reload: done", 10)
    print(f"ok: SetPriority1 77 (busctl: {got}) and Reload from the page as root")
    print(f"ok: screenshot {screenshot}; {time.monotonic() - t0:.1f} s in the browser")
finally:
    driver.quit()
