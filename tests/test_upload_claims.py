"""Uploads per user: Gradio stores identical bytes at one path, so a submission removes the shared file only
when no other page still holds it (`guard.UploadClaims`, used by the app's upload, submit and unload events)."""

from eval_kit.leaderboard.space.guard import UploadClaims, discard_upload


def test_one_users_submission_keeps_the_others_upload_of_the_same_bytes(tmp_path):
    uploads = tmp_path / "uploads"
    shared = uploads / "3f2a9c" / "predictions.jsonl"  # Gradio: uploads/<sha256 of the bytes>/<name>
    shared.parent.mkdir(parents=True)
    shared.write_text('{"id": "a", "prediction": "left"}\n')
    claims = UploadClaims()
    claims.claim(shared, "session-a")
    claims.claim(str(shared), "session-b")  # the same bytes from another page: the same path
    if claims.release(shared, "session-a"):  # what the submit handler does after user A's submission
        discard_upload(shared, uploads)
    assert shared.is_file() and claims.held(shared)  # user B's upload is still there
    if claims.release(shared, "session-b"):
        discard_upload(shared, uploads)
    assert not shared.exists() and not shared.parent.exists() and not claims.held(shared)


def test_a_page_that_leaves_frees_only_what_nobody_else_holds(tmp_path):
    claims = UploadClaims()
    a, b = tmp_path / "x" / "a.jsonl", tmp_path / "y" / "b.jsonl"
    claims.claim(a, "s1")
    claims.claim(b, "s1")
    claims.claim(b, "s2")
    assert claims.release_all("s1") == [str(a.resolve())]
    assert claims.held(b) and not claims.held(a)
    assert claims.release(a, "s1") is True  # unknown to the claims: nobody else holds it, it may go
    claims.claim(None, "s3")
    claims.claim(a, None)
    assert not claims.held(a)
