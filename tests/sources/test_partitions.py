"""n-best files cut into partitions: every cut on a list boundary, nothing lost or read twice, lines numbered."""
import gzip

from ranker.sources.partitions import Partition, count_lines, number_lines, plan, read_bytes


def _parts_text(parts):
    return b"".join(read_bytes(p).read() for p in parts)


def test_a_large_plain_file_is_cut_where_lists_begin(bllip_lists, tmp_path):
    data = gzip.decompress((bllip_lists / "nbest-test.txt.gz").read_bytes())
    path = tmp_path / "test.nbest"
    path.write_bytes(data)
    parts = plan([str(path)], 500_000)
    assert len(parts) > 10 and parts[0].start == 0 and parts[-1].end is None
    assert all(a.end == b.start for a, b in zip(parts, parts[1:]))
    assert _parts_text(parts) == data                       # nothing lost, nothing twice
    for p in parts[1:]:                                     # each begins a list: after a blank line, a header
        assert data[p.start - 2:p.start] == b"\n\n" and data[p.start:].split(b"\n", 1)[0].split(b"\t")[0].isdigit()
    numbered = number_lines(parts, {p: count_lines(p) for p in parts})
    for p in numbered:
        assert p.first_line == data[:p.start].count(b"\n") + 1


def test_small_and_compressed_files_are_one_partition_each(bllip_lists, tmp_path):
    small = tmp_path / "small.nbest"
    small.write_text("1\twsj_0001.0\n-10.0\n(S1 (S (NN x)))\n\n")
    gz = str(bllip_lists / "nbest-test.txt.gz")
    assert plan([str(small), gz], 1000) == [Partition(str(small)), Partition(gz)]
    assert read_bytes(Partition(gz)).read() == gzip.decompress((bllip_lists / "nbest-test.txt.gz").read_bytes())


def test_blank_lines_of_white_space_and_a_tail_without_lists(tmp_path):
    block = b"1\twsj_0001.0\n-10.0\n(S1 (S (NN x)))\n"
    data = block + b"\n   \n\n" + block + b"\n \t\n" + block + b"\n\n\n\n   \n"
    path = tmp_path / "odd.nbest"
    path.write_bytes(data)
    for size in range(1, len(data) + 2):
        parts = plan([str(path)], size)
        assert _parts_text(parts) == data
        assert all(p.start == 0 or data[p.start:p.start + 1] == b"1" for p in parts)
