"""The phone page in a real browser: Debian's headless Chromium driven by Selenium (the
chromium and chromium-driver packages; make test installs them, nothing is downloaded). The
page follows a throw with no reload, and a seat claimed on the page presses that seat's
button."""

from __future__ import annotations

import shutil
import time

import pytest
from netkit import table_on_web
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


@pytest.fixture
def browser():
    for path, package in ((CHROMIUM, "chromium"), (DRIVER, "chromium-driver")):
        if not shutil.which(path):
            pytest.fail(f"{path} is missing: apt-get install {package} (make test installs it)")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=412,915"):
        options.add_argument(arg)
    options.add_argument("--disable-dev-shm-usage")
    driver = webdriver.Chrome(service=Service(executable_path=DRIVER), options=options)
    yield driver
    driver.quit()


def _step_until(session, t, test, seconds=20.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        session.step(t)
        if test():
            return
        time.sleep(0.05)
    raise AssertionError("the page did not show it in time")


def test_the_page_follows_a_throw_and_a_claimed_seat_presses(tmp_path, browser):
    session, net = table_on_web(tmp_path, "bank", ("Ana", "Ben"), options={"rounds": 10})
    table = session.table
    try:
        browser.get(f"http://127.0.0.1:{net.port}/")
        wait = WebDriverWait(browser, 20)
        wait.until(lambda b: b.find_element(By.ID, "link").text == "live")
        names = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#scores .pname")]
        assert names == ["Ana", "Ben"]
        assert browser.find_elements(By.CSS_SELECTOR, "#dice .die") == []
        # a throw on the tray appears on the page, no reload
        table.roll(["d6:3", "d6:4"], t=0.0)

        def dice():
            return [
                (e.get_attribute("data-die"), e.get_attribute("data-face"))
                for e in browser.find_elements(By.CSS_SELECTOR, "#dice .die")
            ]

        _step_until(session, 0.1, lambda: dice() == [("d6", "3"), ("d6", "4")])
        assert "70" in browser.find_element(By.ID, "total").text  # a first roll of 7 is 70
        # Ben claims his seat with the code the tray shows, then banks with the page's button
        for dice_ in (["d6:1", "d6:2"], ["d6:5", "d6:1"]):
            table.roll(dice_, t=0.2)
        session.step(0.3)
        code = next(s["code"] for s in net.join_info()["seats"] if s["name"] == "Ben")
        Select(browser.find_element(By.ID, "claim-seat")).select_by_visible_text("Ben")
        browser.find_element(By.ID, "claim-code").send_keys(code)
        browser.find_element(By.CSS_SELECTOR, "#claim button").click()
        wait.until(lambda b: b.find_element(By.ID, "you-name").text == "You are Ben")
        assert net.claims.claimed() == [1]
        _step_until(session, 0.4, lambda: "bank" in browser.find_element(By.ID, "you-what").text)
        browser.find_element(By.ID, "press").click()
        _step_until(session, 0.5, lambda: table.state["banked"][1])
        assert table.journal.events[-1] == {"type": "action", "player": 1, "action": "bank"}
        # what the browser fetched came from the tray alone
        hosts = browser.execute_script(
            "return performance.getEntriesByType('resource').map(e => new URL(e.name).host)"
        )
        assert set(hosts) <= {f"127.0.0.1:{net.port}"}, hosts
        browser.save_screenshot(str(tmp_path / "phone.png"))
    finally:
        net.close()
