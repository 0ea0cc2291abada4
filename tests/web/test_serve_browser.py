"""``cardtally serve``'s page in a real headless Chromium at a phone's size: the sample photos
go in through the page's own file inputs, a card is given to a player by tapping it, and the
round is saved. Skipped where Debian's chromium and chromium-driver (or selenium) are missing."""

from __future__ import annotations

import io
import os
import shutil
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_setup import SAMPLES, TRUTH, new_game, sample_bytes
from typer.testing import CliRunner

from cardtally.cli import app
from cardtally.rounds.games import read_game

CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), shutil.which("chromedriver")
if not CHROMIUM.exists() or CHROMEDRIVER is None:
    pytest.skip("no browser: apt-get install chromium chromium-driver", allow_module_level=True)
pytest.importorskip("uvicorn", reason="the serve extra is not installed")
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
import uvicorn  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as until  # noqa: E402
from selenium.webdriver.support.select import Select  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from cardtally.web.app import create_app  # noqa: E402

TOKEN = "browser-test-token"
#: A phone's screen in CSS pixels (an iPhone 12-15).
PHONE_WH = (390, 844)
#: The card buttons on the centre photo's review image.
CARDS = "#photos figure:first-child button.card"
TOPMOST_CARD = """
for (const button of document.querySelectorAll(arguments[0])) {
  button.scrollIntoView({block: "center"});
  const box = button.getBoundingClientRect();
  if (document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2) === button) {
    return Number(button.dataset.number);
  }
}
return null;
"""


@pytest.fixture
def server_url(calibrated_decks: Path, cardtally_home: Path) -> Iterator[str]:
    """The page served by uvicorn in a thread, for the sample game."""
    new_game(cardtally_home, calibrated_decks)
    yield from serve()


@pytest.fixture
def no_game_url(calibrated_decks: Path, cardtally_home: Path) -> Iterator[str]:
    """The page served by uvicorn in a thread, with the sample decks calibrated, no game."""
    shutil.copytree(calibrated_decks, cardtally_home / "decks")
    yield from serve()


def serve() -> Iterator[str]:
    """The page's address while uvicorn serves it in a thread."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    server = uvicorn.Server(uvicorn.Config(create_app(TOKEN), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/?token={TOKEN}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


@pytest.fixture
def browser() -> Iterator[webdriver.Chrome]:
    yield from phone_browser(3.0)


def phone_browser(pixel_ratio: float) -> Iterator[webdriver.Chrome]:
    """Headless Chromium with a phone's screen (``PHONE_WH`` CSS pixels, ``pixel_ratio``
    device pixels to one), closed when done."""
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                     f"--window-size={PHONE_WH[0]},{PHONE_WH[1]}"):
        options.add_argument(argument)
    options.add_experimental_option("mobileEmulation", {
        "deviceMetrics": {"width": PHONE_WH[0], "height": PHONE_WH[1], "pixelRatio": pixel_ratio,
                          "touch": True}})
    driver = webdriver.Chrome(options=options,
                              service=webdriver.ChromeService(executable_path=CHROMEDRIVER))
    try:
        yield driver
    finally:
        driver.quit()


def wait_for_status(driver, text: str) -> None:
    """Wait until the page's status line says ``text`` (counting a photo takes seconds)."""
    WebDriverWait(driver, 120).until(until.text_to_be_present_in_element((By.ID, "status"), text))


def test_a_round_is_photographed_corrected_and_saved_on_a_phone(
    server_url: str, browser, tmp_path: Path,
) -> None:
    browser.get(server_url)
    WebDriverWait(browser, 30).until(
        until.text_to_be_present_in_element((By.ID, "game-title"), "Game 1"))
    assert browser.execute_script("return window.innerWidth") == PHONE_WH[0]
    for label in ("centre", "leftover"):
        photo = tmp_path / f"{label}.jpg"
        photo.write_bytes(sample_bytes(f"{label}.jpg"))
        browser.find_element(By.ID, f"{label}-input").send_keys(str(photo))
        wait_for_status(browser, f"The {label} photo is counted.")
    assert browser.find_element(By.ID, "error").text == ""
    WebDriverWait(browser, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, CARDS))
    # The first card whose button no neighbour's covers (on a phone's screen some overlap).
    number = browser.execute_script(TOPMOST_CARD, CARDS)
    assert number is not None
    card = browser.find_element(By.CSS_SELECTOR, f"{CARDS}[data-number='{number}']")
    player = next(p for p in TRUTH["players"] if p not in card.get_attribute("title"))
    card.click()
    dialog = browser.find_element(By.ID, "card-dialog")
    dialog.find_element(By.XPATH, f".//button[text()='{player}']").click()
    WebDriverWait(browser, 60).until(until.text_to_be_present_in_element_attribute(
        (By.CSS_SELECTOR, f"{CARDS}[data-number='{number}']"), "title", player))
    browser.find_element(By.ID, "caller").send_keys(TRUTH["caller"])
    WebDriverWait(browser, 30).until(lambda d: d.execute_script(
        "return document.getElementById('caller').value") == TRUTH["caller"])
    browser.find_element(By.ID, "save").click()
    wait_for_status(browser, "Round 1 is saved.")
    game, _ = read_game(None)
    (saved,) = game.rounds
    assert saved.evidence["card_fixes"] == [f"centre:centre.jpg:{number}={player}"]
    assert saved.entry.caller == TRUTH["caller"]


def test_a_game_is_started_on_a_phone(no_game_url: str, browser) -> None:
    browser.get(no_game_url)
    WebDriverWait(browser, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".seat"))
    assert browser.find_element(By.ID, "new-game").get_attribute("open") is not None
    players = list(TRUTH["players"].items())
    browser.find_element(By.ID, "add-seat").click()
    for row, (player, deck) in zip(browser.find_elements(By.CSS_SELECTOR, ".seat"), players,
                                   strict=True):
        row.find_element(By.CLASS_NAME, "seat-player").send_keys(player)
        Select(row.find_element(By.CLASS_NAME, "seat-deck")).select_by_value(deck)
    browser.find_element(By.ID, "target").send_keys("50")
    browser.find_element(By.ID, "start-game").click()
    wait_for_status(browser, "Game 1 is started.")
    assert browser.find_element(By.ID, "game-title").text.startswith("Game 1 (ligretto)")
    game, _ = read_game(None)
    assert [(s.player, s.deck) for s in game.seats] == players
    assert game.rules.target == 50
    # A round saved elsewhere (here on the laptop) shows without a reload.
    typed = [f"--center={p}=5" for p in TRUTH["players"]] + [
        f"--leftover={p}=2" for p in TRUTH["players"]]
    assert CliRunner().invoke(app, ["round", "add", *typed]).exit_code == 0
    WebDriverWait(browser, 30).until(
        until.text_to_be_present_in_element((By.ID, "game-title"), "1 round(s)"))


def test_typed_leftovers_and_a_fixed_count_on_a_phone(server_url: str, browser, tmp_path: Path
                                                      ) -> None:
    browser.get(server_url)
    WebDriverWait(browser, 30).until(
        until.text_to_be_present_in_element((By.ID, "game-title"), "Game 1"))
    photo = tmp_path / "centre.jpg"
    photo.write_bytes(sample_bytes("centre.jpg"))
    browser.find_element(By.ID, "centre-input").send_keys(str(photo))
    wait_for_status(browser, "The centre photo is counted.")
    Select(browser.find_element(By.ID, "caller")).select_by_value("Anna")
    browser.find_element(By.CSS_SELECTOR, "input[name='leftovers'][value='typed']").click()
    for player, count in (("Ben", "3"), ("Cleo", "5")):
        browser.find_element(By.CSS_SELECTOR, f"#left-inputs input[data-player='{player}']"
                             ).send_keys(count)
    browser.find_element(By.ID, "use-left").click()
    WebDriverWait(browser, 30).until(lambda d: "left" not in d.find_element(By.ID, "missing").text)
    browser.find_element(By.CSS_SELECTOR, "#fix-box summary").click()
    Select(browser.find_element(By.ID, "fix-player")).select_by_value("Ben")
    browser.find_element(By.ID, "fix").click()
    wait_for_status(browser, "Fixed: Ben=centre:+1.")
    assert browser.find_element(By.ID, "error").text == ""
    assert browser.find_element(By.ID, "corrections").text == "Corrections: Ben=centre:+1"
    browser.find_element(By.ID, "save").click()
    wait_for_status(browser, "Round 1 is saved.")
    game, _ = read_game(None)
    (saved,) = game.rounds
    assert saved.entry.caller == "Anna"
    assert [c.pile_cards for c in saved.entry.counts] == [0, 3, 5]
    assert saved.evidence["leftover_source"] == "typed"
    assert saved.evidence["fixes"] == ["Ben=centre:+1"]


#: Where the screenshots go: docs/serve/ with CARDTALLY_SCREENSHOTS=docs/serve (to regenerate
#: the ones docs/serve.md shows), else a temporary folder.
SCREENSHOTS_ENV = "CARDTALLY_SCREENSHOTS"
#: Each screenshot's largest size, to keep the repository small.
MAX_SCREENSHOT_BYTES = 200_000


def save_screenshot(driver, folder: Path, name: str) -> Path:
    """The page as the phone shows it now, as ``folder/name.png``: 128 colours, undithered, compressed
    hard (the review images' photos would make it several times larger)."""
    from PIL import Image

    image = Image.open(io.BytesIO(driver.get_screenshot_as_png())).convert("RGB")
    path = folder / f"{name}.png"
    image.quantize(128, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(
        path, optimize=True)
    return path


def scroll_to(driver, element_id: str) -> None:
    driver.execute_script("document.getElementById(arguments[0]).scrollIntoView({block: 'start'})",
                          element_id)


@pytest.fixture
def screenshots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get(SCREENSHOTS_ENV) or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_screenshots_of_the_page_at_a_phone_size(
    no_game_url: str, screenshots: Path, tmp_path: Path,
) -> None:
    """The page's screenshots in docs/serve.md, taken along a game: the new game form, a
    counted round, the card dialog, a deck's calibration photo."""
    driver = next(shots := phone_browser(1.0))
    try:
        driver.get(no_game_url)
        WebDriverWait(driver, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".seat"))
        driver.find_element(By.ID, "add-seat").click()
        for row, (player, deck) in zip(driver.find_elements(By.CSS_SELECTOR, ".seat"),
                                       TRUTH["players"].items(), strict=True):
            row.find_element(By.CLASS_NAME, "seat-player").send_keys(player)
            Select(row.find_element(By.CLASS_NAME, "seat-deck")).select_by_value(deck)
        paths = [save_screenshot(driver, screenshots, "new-game")]
        driver.find_element(By.ID, "start-game").click()
        wait_for_status(driver, "Game 1 is started.")
        for label in ("centre", "leftover"):
            photo = tmp_path / f"{label}.jpg"
            photo.write_bytes(sample_bytes(f"{label}.jpg"))
            driver.find_element(By.ID, f"{label}-input").send_keys(str(photo))
            wait_for_status(driver, f"The {label} photo is counted.")
        Select(driver.find_element(By.ID, "caller")).select_by_value(TRUTH["caller"])
        WebDriverWait(driver, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, CARDS))
        driver.execute_script("window.scrollTo(0, 0)")
        paths.append(save_screenshot(driver, screenshots, "round"))
        scroll_to(driver, "photos")
        paths.append(save_screenshot(driver, screenshots, "review"))
        number = driver.execute_script(TOPMOST_CARD, CARDS)
        driver.find_element(By.CSS_SELECTOR, f"{CARDS}[data-number='{number}']").click()
        paths.append(save_screenshot(driver, screenshots, "card"))
        driver.find_element(By.CSS_SELECTOR, "#card-dialog button[value='cancel']").click()
        driver.find_element(By.ID, "calibrate-title").click()
        driver.find_element(By.ID, "deck-name").send_keys("blue-sun")
        photo = tmp_path / "blue-sun.jpg"
        photo.write_bytes(SAMPLES.joinpath("calibration", "teal-ben.jpg").read_bytes())
        driver.find_element(By.ID, "calibration-input").send_keys(str(photo))
        wait_for_status(driver, "The photo is ready.")
        scroll_to(driver, "calibrate")
        paths.append(save_screenshot(driver, screenshots, "calibrate"))
    finally:
        shots.close()
    for path in paths:
        data = path.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        assert 0 < len(data) <= MAX_SCREENSHOT_BYTES, (path.name, len(data))
