// Command argocd-lua runs Argo CD resource health scripts the way Argo CD's controller
// does (util/lua: runLua and ExecuteHealthLua), for wlmap's export tests.
//
// It reads JSON lines on stdin, {"name": N, "script": S, "useOpenLibs": B, "obj": O}, and
// writes one JSON line per input, {"status": ..., "message": ...} or {"error": ...}. A
// script is compiled once and kept, with its useOpenLibs, under its name (a later line may
// give the name alone), and run on a new state for each object, as Argo CD runs it.
//
// The state is Argo CD's: without useOpenLibs only the package, base and table libraries
// and a safe os library (time and date functions only) are open; os is also preloaded for
// require("os"); each run has a one-second deadline; the object is decoded into Lua
// tables as Argo CD's decodeValue does (arrays 1-based, numbers as Lua numbers, null as
// nil). The returned table is read as Argo CD reads it: encoded to JSON and decoded into
// a health status; a status outside Argo CD's six becomes Unknown with its message.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

const invalidHealthStatus = "Lua returned an invalid health status"

var validStatus = map[string]bool{
	"Unknown": true, "Progressing": true, "Suspended": true,
	"Healthy": true, "Degraded": true, "Missing": true,
}

type request struct {
	Name        string          `json:"name"`
	Script      string          `json:"script"`
	UseOpenLibs bool            `json:"useOpenLibs"`
	Obj         json.RawMessage `json:"obj"`
}

type response struct {
	Status  string `json:"status,omitempty"`
	Message string `json:"message,omitempty"`
	Error   string `json:"error,omitempty"`
}

// script is a compiled health script and its resource.customizations.useOpenLibs entry.
type script struct {
	proto       *lua.FunctionProto
	useOpenLibs bool
}

func main() {
	compiled := map[string]script{}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	encoder := json.NewEncoder(out)
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			_ = encoder.Encode(run(compiled, line))
			_ = out.Flush()
		}
		if err != nil {
			return
		}
	}
}

func run(compiled map[string]script, line []byte) response {
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		return response{Error: "bad request: " + err.Error()}
	}
	found, ok := compiled[req.Name]
	if req.Script != "" {
		chunk, err := parse.Parse(bytes.NewReader([]byte(req.Script)), "<health.lua>")
		if err != nil {
			return response{Error: err.Error()}
		}
		proto, err := lua.Compile(chunk, "<health.lua>")
		if err != nil {
			return response{Error: err.Error()}
		}
		found = script{proto, req.UseOpenLibs}
		compiled[req.Name] = found
	} else if !ok {
		return response{Error: "no script named " + req.Name}
	}
	decoder := json.NewDecoder(bytes.NewReader(req.Obj))
	decoder.UseNumber()
	var obj any
	if err := decoder.Decode(&obj); err != nil {
		return response{Error: "bad object: " + err.Error()}
	}
	return health(found.proto, found.useOpenLibs, obj)
}

// health is ExecuteHealthLua: run the script, read the value it returned.
func health(proto *lua.FunctionProto, useOpenLibs bool, obj any) response {
	l := lua.NewState(lua.Options{SkipOpenLibs: !useOpenLibs})
	defer l.Close()
	for _, pair := range []struct {
		n string
		f lua.LGFunction
	}{
		{lua.LoadLibName, lua.OpenPackage},
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.OsLibName, openSafeOs},
	} {
		if err := l.CallByParam(lua.P{Fn: l.NewFunction(pair.f), NRet: 0, Protect: true}, lua.LString(pair.n)); err != nil {
			return response{Error: err.Error()}
		}
	}
	l.PreloadModule(lua.OsLibName, safeOsLoader)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	l.SetContext(ctx)
	l.SetGlobal("obj", decodeValue(l, obj))
	l.Push(l.NewFunctionFromProto(proto))
	if err := l.PCall(0, lua.MultRet, nil); err != nil {
		return response{Error: err.Error()}
	}
	value := l.Get(-1)
	switch value.Type() {
	case lua.LTTable:
		return readStatus(value.(*lua.LTable))
	case lua.LTNil:
		return response{}
	}
	return response{Error: fmt.Sprintf("expect table output from Lua script, not %s", value.Type())}
}

// readStatus reads the returned table as Argo CD's JSON round trip into HealthStatus does:
// status and message must be strings when present.
func readStatus(table *lua.LTable) response {
	var result response
	if key, _ := table.Next(lua.LNil); key == lua.LNil {
		return result // an empty table encodes as [], which Argo CD reads as no health
	}
	for _, field := range []struct {
		name string
		into *string
	}{{"status", &result.Status}, {"message", &result.Message}} {
		switch v := table.RawGetString(field.name).(type) {
		case lua.LString:
			*field.into = string(v)
		case *lua.LNilType:
		default:
			return response{Error: fmt.Sprintf("json: cannot unmarshal %s into HealthStatus.%s", v.Type(), field.name)}
		}
	}
	if !validStatus[result.Status] {
		return response{Status: "Unknown", Message: invalidHealthStatus}
	}
	return result
}

// decodeValue is Argo CD's: the object as the controller holds it (numbers int64 or
// float64) in Lua values.
func decodeValue(l *lua.LState, value any) lua.LValue {
	switch v := value.(type) {
	case bool:
		return lua.LBool(v)
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return lua.LNumber(i)
		}
		f, _ := v.Float64()
		return lua.LNumber(f)
	case string:
		return lua.LString(v)
	case []any:
		arr := l.CreateTable(len(v), 0)
		for _, item := range v {
			arr.Append(decodeValue(l, item))
		}
		return arr
	case map[string]any:
		tbl := l.CreateTable(0, len(v))
		for key, item := range v {
			tbl.RawSetH(lua.LString(key), decodeValue(l, item))
		}
		return tbl
	}
	return lua.LNil
}

// The safe os library: Argo CD's offers os.time and os.date only (oslib_safe.go), nothing
// that touches files, processes or the environment.
var safeOsNames = []string{"date", "time"}

func safeOsTable(l *lua.LState) *lua.LTable {
	l.Push(l.NewFunction(lua.OpenOs))
	l.Push(lua.LString(lua.OsLibName))
	l.Call(1, 1)
	full := l.CheckTable(-1)
	l.Pop(1)
	loaded, _ := l.GetField(l.Get(lua.RegistryIndex), "_LOADED").(*lua.LTable)
	safe := l.NewTable()
	for _, name := range safeOsNames {
		safe.RawSetString(name, full.RawGetString(name))
	}
	if loaded != nil { // require("os") gives the safe table, never the full one
		loaded.RawSetString(lua.OsLibName, safe)
	}
	return safe
}

func openSafeOs(l *lua.LState) int {
	safe := safeOsTable(l)
	l.SetGlobal(lua.OsLibName, safe)
	l.Push(safe)
	return 1
}

func safeOsLoader(l *lua.LState) int {
	l.Push(safeOsTable(l))
	return 1
}
