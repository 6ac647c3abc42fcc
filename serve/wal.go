package serve

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
)

// The write-ahead log of graph updates (after etcd's wal): a file that
// begins with walMagic, then records, each
//
//	length uint32 (little endian, of the payload) | crc32c(payload) uint32 | payload
//
// whose payload is the JSON of a Record. A record is appended and the file
// fsynced before the update is acknowledged; replay reads records until the
// end or the first record that is cut short or fails its checksum (a write
// torn by a crash: it was never acknowledged), and the log is truncated
// there, so the next append follows the last whole record.

const (
	walMagic   = "RGNNWAL1"
	walFile    = "updates.wal"
	maxRecord  = 256 << 20 // longer lengths are garbage, not records
	recordHead = 8
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// Record is one entry of the log: the log's header (Kind "header", first),
// or an accepted update that made graph version Version.
type Record struct {
	Version uint64 `json:"version"`
	Kind    string `json:"kind"` // header, edges, nodes
	// Header: what the log belongs to.
	Graph *GraphID `json:"graph,omitempty"`
	// Edges (kind edges; nodes: the new nodes' edges, ids after the
	// addition).
	Add    [][2]int32 `json:"add,omitempty"`
	Remove [][2]int32 `json:"remove,omitempty"`
	// Features of the new nodes (kind nodes): per node its nonzero
	// columns and values.
	Cols [][]int32   `json:"cols,omitempty"`
	Vals [][]float32 `json:"vals,omitempty"`
}

// GraphID names the graph a log's updates apply to, so that a state folder
// is not replayed onto another dataset or model.
type GraphID struct {
	Dataset  string `json:"dataset"`
	Graph    string `json:"graph,omitempty"` // the perturbed starting graph, if any
	Binary   bool   `json:"binary_attr"`
	Nodes    int    `json:"nodes"`
	Edges    int    `json:"edges"`
	Features int    `json:"features"`
	Digest   string `json:"digest"` // sha256 of the starting adjacency and features
}

// wal is an open log, appended to by one writer at a time.
type wal struct {
	f    *os.File
	path string
	size int64
}

// openWAL opens (or creates) the log in dir and returns its records after
// the header; a torn tail is cut off (truncated reports how many bytes).
// The header must equal id (a new log is started with it).
func openWAL(dir string, id GraphID) (w *wal, recs []Record, truncated int64, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, 0, fmt.Errorf("state folder: %w", err)
	}
	path := filepath.Join(dir, walFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("write-ahead log: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, 0, fmt.Errorf("write-ahead log: %w", err)
	}
	w = &wal{f: f, path: path}
	if st.Size() == 0 {
		if err := w.start(id); err != nil {
			return nil, nil, 0, err
		}
		return w, nil, 0, nil
	}
	all, good, err := readRecords(f)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("write-ahead log %s: %w", path, err)
	}
	if len(all) == 0 || all[0].Kind != "header" || all[0].Graph == nil {
		// Only the magic (or a torn header): nothing was ever acknowledged.
		if err := f.Truncate(0); err != nil {
			return nil, nil, 0, fmt.Errorf("write-ahead log: %w", err)
		}
		if err := w.start(id); err != nil {
			return nil, nil, 0, err
		}
		return w, nil, st.Size(), nil
	}
	if *all[0].Graph != id {
		return nil, nil, 0, fmt.Errorf("write-ahead log %s belongs to another graph (%+v; this server loads %+v): "+
			"give another --state folder", path, *all[0].Graph, id)
	}
	if good < st.Size() {
		if err := f.Truncate(good); err != nil {
			return nil, nil, 0, fmt.Errorf("write-ahead log: cutting the torn tail: %w", err)
		}
		if err := f.Sync(); err != nil {
			return nil, nil, 0, fmt.Errorf("write-ahead log: %w", err)
		}
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		return nil, nil, 0, fmt.Errorf("write-ahead log: %w", err)
	}
	w.size = good
	return w, all[1:], st.Size() - good, nil
}

// start writes the magic and the header into the empty log and syncs it
// and its folder.
func (w *wal) start(id GraphID) error {
	if _, err := w.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("write-ahead log: %w", err)
	}
	if _, err := w.f.Write([]byte(walMagic)); err != nil {
		return fmt.Errorf("write-ahead log: %w", err)
	}
	w.size = int64(len(walMagic))
	if err := w.append(Record{Kind: "header", Graph: &id}); err != nil {
		return err
	}
	if d, err := os.Open(filepath.Dir(w.path)); err == nil {
		err = d.Sync() // the new file's entry in its folder
		d.Close()
		if err != nil {
			return fmt.Errorf("write-ahead log: syncing its folder: %w", err)
		}
	}
	return nil
}

// readRecords reads the magic and every whole record; good is the offset
// after the last one.
func readRecords(f *os.File) (recs []Record, good int64, err error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, 0, err
	}
	r := bufio.NewReaderSize(f, 1<<20)
	magic := make([]byte, len(walMagic))
	if _, err := io.ReadFull(r, magic); err != nil {
		return nil, 0, nil // torn before the magic was whole
	}
	if string(magic) != walMagic {
		return nil, 0, errors.New("not an rgnn write-ahead log (bad magic)")
	}
	good = int64(len(walMagic))
	var head [recordHead]byte
	for {
		if _, err := io.ReadFull(r, head[:]); err != nil {
			return recs, good, nil // the end, or a torn header
		}
		n := binary.LittleEndian.Uint32(head[:4])
		if n > maxRecord {
			return recs, good, nil
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(r, payload); err != nil {
			return recs, good, nil
		}
		if crc32.Checksum(payload, crcTable) != binary.LittleEndian.Uint32(head[4:]) {
			return recs, good, nil
		}
		var rec Record
		if err := json.Unmarshal(payload, &rec); err != nil {
			return recs, good, nil
		}
		recs = append(recs, rec)
		good += recordHead + int64(n)
	}
}

// append writes one record and syncs the file: when it returns nil the
// record survives a crash.
func (w *wal) append(rec Record) error {
	payload, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("write-ahead log: %w", err)
	}
	buf := make([]byte, recordHead+len(payload))
	binary.LittleEndian.PutUint32(buf[:4], uint32(len(payload)))
	binary.LittleEndian.PutUint32(buf[4:8], crc32.Checksum(payload, crcTable))
	copy(buf[recordHead:], payload)
	if _, err := w.f.WriteAt(buf, w.size); err != nil {
		return fmt.Errorf("write-ahead log: %w", err)
	}
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("write-ahead log: fsync: %w", err)
	}
	w.size += int64(len(buf))
	return nil
}

// close closes the log.
func (w *wal) close() error { return w.f.Close() }
