"""Task sets leaving and entering the studio as archives (MLE-bench, SandMLE or our bundle layout): reviewers only."""
