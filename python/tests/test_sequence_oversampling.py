"""load_sequence_folders' promise to train.py: a folder named twice (--data X --data X, or X and
X/) is read once and listed twice, so it is drawn twice as often without a second copy of its
frames in memory."""
import os
import sys
import tempfile
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from swinup import data  # noqa: E402


class Oversampling(unittest.TestCase):
    def test_a_folder_named_twice_is_read_once_and_listed_twice(self):
        reads = []

        class Recorded:  # stands in for SequenceFolder, whose reading the EXR tests cover
            def __init__(self, path, device, pool):
                reads.append(path)
                self.path = path

        with tempfile.TemporaryDirectory() as root, mock.patch.object(data, "SequenceFolder", Recorded):
            a, b = os.path.join(root, "a"), os.path.join(root, "b")
            os.mkdir(a)
            os.mkdir(b)
            seqs = data.load_sequence_folders([a, b, a + "/", os.path.join(root, ".", "a")], "cpu", workers=1)
        self.assertEqual(reads, [a, b])
        self.assertEqual(len(seqs), 4)
        self.assertIs(seqs[0], seqs[2])
        self.assertIs(seqs[0], seqs[3])
        self.assertIsNot(seqs[0], seqs[1])


if __name__ == "__main__":
    unittest.main()
