// The Go side of the differential test engine/tests/go_oracle.rs: the real libraries the
// reference systems use, answering one request per line on stdin, one answer per line on
// stdout.
//
// A request is a JSON array of strings: [kind, args...]. Kinds:
//
//	cron  spec t1 t2 t3  Karpenter: cron.ParseStandard("TZ=UTC " + spec) (robfig/cron v3),
//	                     then Next from each instant ("unixSeconds.nanos", UTC)
//	dur   s              time.ParseDuration
//	time  s              time.Parse(time.RFC3339, s) (metav1.Time's UnmarshalJSON)
//	float s              strconv.ParseFloat(s, 64) (Karpenter's pod deletion cost)
//	yaml  s              the plain scalar s as the value of a mapping key, read by
//	                     sigs.k8s.io/yaml (go-yaml v2 typing, then JSON)
//	ydoc  s              a whole YAML document, converted to JSON by sigs.k8s.io/yaml
//
// Answers: "ok:<value>" or "err:<message>", in the formats documented per kind below.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	cron "github.com/robfig/cron"
	yamlv2 "gopkg.in/yaml.v2"
	"sigs.k8s.io/yaml"
)

func instant(s string) (time.Time, error) {
	parts := strings.SplitN(s, ".", 2)
	sec, err := strconv.ParseInt(parts[0], 10, 64)
	if err != nil {
		return time.Time{}, err
	}
	var nsec int64
	if len(parts) == 2 {
		if nsec, err = strconv.ParseInt(parts[1], 10, 64); err != nil {
			return time.Time{}, err
		}
	}
	return time.Unix(sec, nsec).UTC(), nil
}

// stamp: "zero" for Go's zero time, else "unixSeconds.nanos".
func stamp(t time.Time) string {
	if t.IsZero() {
		return "zero"
	}
	return fmt.Sprintf("%d.%09d", t.Unix(), t.Nanosecond())
}

func answer(req []string) string {
	if len(req) < 2 {
		return "err:bad request"
	}
	switch req[0] {
	case "cron":
		// ok: the next firings, space-separated.
		s, err := cron.ParseStandard("TZ=UTC " + req[1])
		if err != nil {
			return "err:" + err.Error()
		}
		var out []string
		for _, a := range req[2:] {
			t, err := instant(a)
			if err != nil {
				return "err:bad instant " + a
			}
			out = append(out, stamp(s.Next(t)))
		}
		return "ok:" + strings.Join(out, " ")
	case "dur":
		// ok: nanoseconds.
		d, err := time.ParseDuration(req[1])
		if err != nil {
			return "err:" + err.Error()
		}
		return fmt.Sprintf("ok:%d", int64(d))
	case "time":
		// ok: "unixSeconds.nanos@offsetSeconds".
		t, err := time.Parse(time.RFC3339, req[1])
		if err != nil {
			return "err:" + err.Error()
		}
		_, off := t.Zone()
		return fmt.Sprintf("ok:%d.%09d@%d", t.Unix(), t.Nanosecond(), off)
	case "float":
		// ok: the IEEE bits in hex; err:range:<bits> (Go returns ±Inf with ErrRange) or
		// err:syntax.
		f, err := strconv.ParseFloat(req[1], 64)
		if err != nil {
			if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
				return fmt.Sprintf("err:range:%016x", math.Float64bits(f))
			}
			return "err:syntax"
		}
		return fmt.Sprintf("ok:%016x", math.Float64bits(f))
	case "yaml", "ytag":
		// ok:<type>:<value> from go-yaml v2 (what sigs.k8s.io/yaml converts to JSON), then
		// "|" and sigs.k8s.io/yaml's JSON, or "|err:<message>" when it cannot make JSON.
		doc := []byte("v: " + req[1] + "\n")
		var m map[string]interface{}
		if err := yamlv2.Unmarshal(doc, &m); err != nil {
			return "err:" + err.Error()
		}
		var typed string
		switch v := m["v"].(type) {
		case nil:
			typed = "null:"
		case bool:
			typed = fmt.Sprintf("bool:%t", v)
		case int:
			typed = fmt.Sprintf("int:%d", v)
		case int64:
			typed = fmt.Sprintf("int:%d", v)
		case uint64:
			typed = fmt.Sprintf("uint:%d", v)
		case float64:
			typed = fmt.Sprintf("float:%016x", math.Float64bits(v))
		case string:
			typed = "str:" + v
		default:
			typed = fmt.Sprintf("other:%T", v)
		}
		j, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return "ok:" + typed + "|err:" + err.Error()
		}
		return "ok:" + typed + "|" + string(j)
	case "ydoc":
		j, err := yaml.YAMLToJSON([]byte(req[1]))
		if err != nil {
			return "err:" + err.Error()
		}
		return "ok:" + string(j)
	}
	return "err:unknown kind " + req[0]
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	defer out.Flush()
	for in.Scan() {
		var req []string
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			fmt.Fprintln(out, "err:bad request")
			continue
		}
		a := answer(req)
		// One line per answer: newlines inside an error text are escaped.
		fmt.Fprintln(out, strings.ReplaceAll(a, "\n", "\\n"))
	}
}
