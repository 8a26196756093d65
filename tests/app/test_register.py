"""`docs-sync register` against the stand-in: the local page posts the manifest, GitHub's redirect
brings the code back, the code is exchanged once and the App's settings land in .env (0600)."""

from __future__ import annotations

import html
import json
import re
import stat
from pathlib import Path

import httpx
import pytest
import yaml

from bot.app.github.register import RegisterError, register

ROOT = Path(__file__).resolve().parents[2]


def test_register_posts_the_manifest_and_writes_the_apps_settings(standin, tmp_path: Path):
    manifest = yaml.safe_load((ROOT / "app.yml").read_text())
    manifest["hook_attributes"]["url"] = "https://hooks.example.com/webhook"
    env = tmp_path / ".env"
    env.write_text("LOG_LEVEL=DEBUG")
    seen: dict = {}

    def browser(page: str) -> None:
        """What the user's browser does: loads the page, posts the form to GitHub (played by the
        stand-in's manifest_code), follows GitHub's redirect."""
        body = httpx.get(page).text
        action = html.unescape(re.search(r'action="([^"]+)"', body).group(1))
        posted = json.loads(html.unescape(re.search(r'name=manifest value="([^"]+)"', body).group(1)))
        seen.update(action=action, manifest=posted)
        state = action.split("?state=", 1)[1]
        assert httpx.get(f"{posted['redirect_url']}?code=forged&state=wrong").status_code == 400
        code = standin.manifest_code(posted)
        seen["code"] = code
        done = httpx.get(f"{posted['redirect_url']}?code={code}&state={state}")
        assert done.status_code == 200, done.text

    said: list[str] = []
    app = register(
        manifest, env, org="octo-org", api_url=standin.url, open_page=browser, say=said.append, timeout=60
    )
    assert seen["action"].startswith("https://github.com/organizations/octo-org/settings/apps/new?state=")
    assert seen["manifest"]["redirect_url"].startswith("http://127.0.0.1:")
    assert seen["manifest"]["hook_attributes"]["url"] == "https://hooks.example.com/webhook"
    assert seen["manifest"]["default_permissions"] == manifest["default_permissions"]
    assert app["id"] == standin.app_id and "pem" not in app and "webhook_secret" not in app

    text = env.read_text()
    assert stat.S_IMODE(env.stat().st_mode) == 0o600
    lines = text.splitlines()
    assert lines[0] == "LOG_LEVEL=DEBUG" and lines[1] == f"APP_ID={standin.app_id}"
    key = re.fullmatch(r'PRIVATE_KEY="(.*)"', lines[2]).group(1)
    assert key.replace("\\n", "\n") == standin.private_key_pem.strip()
    assert re.fullmatch(r"WEBHOOK_SECRET=[0-9a-f]{40}", lines[3])
    assert not any(standin.private_key_pem.strip()[40:80] in line for line in said)  # nothing secret said

    # The code is good once; a second registration never overwrites the first's settings.
    again = httpx.post(f"{standin.url}/app-manifests/{seen['code']}/conversions")
    assert again.status_code == 404
    with pytest.raises(RegisterError, match="already sets"):
        register(manifest, env, api_url=standin.url, open_page=lambda page: None, say=said.append, timeout=1)
