"""What a run leaves for reviewers: the Allure formatter, the attachments, the HTML report, redaction of secrets.

Every file a run writes goes through `redaction` (one point, every common encoding of each secret).
"""

__all__: list[str] = []
