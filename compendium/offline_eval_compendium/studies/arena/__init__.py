"""The arena: the four papers side by side on three synthetic worlds (``offline_online``) and on the Open Bandit
Dataset's real logs (``open_bandit``)."""
