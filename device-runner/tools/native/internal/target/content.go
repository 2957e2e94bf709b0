// Package target serves the reference target's routes over HTTP/3: the same status
// codes, texts, headers and bounds as latencylab_tools/target/routes.py, and bodies
// byte-identical to the Python target's (it writes them into a directory we load).
package target

import (
	"fmt"
	"os"
	"path/filepath"
)

// BlockSize is the length of the block /bytes/{n} repeats (content.BLOCK_SIZE).
const BlockSize = 1 << 20

// Content holds every response body in memory: the named files and the 1 MiB block.
type Content struct {
	Files map[string][]byte
	Block []byte
}

// LoadContent reads the directory the Python target wrote (content.write_content_dir):
// dir/block (BlockSize bytes) and dir/files/<name> for each file of content.file_sizes().
func LoadContent(dir string) (*Content, error) {
	block, err := os.ReadFile(filepath.Join(dir, "block"))
	if err != nil {
		return nil, err
	}
	if len(block) != BlockSize {
		return nil, fmt.Errorf("%s: %d bytes, want %d", filepath.Join(dir, "block"), len(block), BlockSize)
	}
	entries, err := os.ReadDir(filepath.Join(dir, "files"))
	if err != nil {
		return nil, err
	}
	files := make(map[string][]byte, len(entries))
	for _, entry := range entries {
		if !entry.Type().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, "files", entry.Name()))
		if err != nil {
			return nil, err
		}
		files[entry.Name()] = data
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no files", filepath.Join(dir, "files"))
	}
	return &Content{Files: files, Block: block}, nil
}

// byteChunks is n bytes as slices of the shared block, without copying (content.byte_chunks).
func (c *Content) byteChunks(n int) [][]byte {
	chunks := make([][]byte, 0, n/BlockSize+1)
	for ; n >= BlockSize; n -= BlockSize {
		chunks = append(chunks, c.Block)
	}
	if n > 0 {
		chunks = append(chunks, c.Block[:n])
	}
	return chunks
}
