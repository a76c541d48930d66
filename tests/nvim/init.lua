-- Headless Neovim (0.7.x, Debian's) as an LSP client of `python -m fullgraph lsp`.
-- Run through tests/nvim/run.sh, which copies the end-to-end model into a temporary workspace:
--   FULLGRAPH_PY=.venv/bin/python nvim --headless -n -i NONE -u tests/nvim/init.lua <workspace>/model.py
-- Prints one "ok:"/"FAIL:" line per check, then "NVIM-E2E: PASS" (exit 0) or "NVIM-E2E: FAIL" (exit 1).
-- Output goes through io.stdout: in headless mode print() does not reach stdout cleanly.

local function out(s)
  io.stdout:write(s .. "\n")
end

local py = os.getenv("FULLGRAPH_PY") or "python3"
local timeout_ms = tonumber(os.getenv("FULLGRAPH_NVIM_TIMEOUT_MS") or "60000")
local failures = 0

local function check(cond, msg)
  if cond then
    out("ok: " .. msg)
  else
    failures = failures + 1
    out("FAIL: " .. msg)
  end
  return cond
end

local function finish()
  out(failures == 0 and "NVIM-E2E: PASS" or ("NVIM-E2E: FAIL (" .. failures .. " failed)"))
  vim.cmd(failures == 0 and "qa!" or "cq!")
end

-- 0-based number of the first buffer line containing `needle` (plain text), or nil.
local function find_line(bufnr, needle)
  for i, line in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
    if line:find(needle, 1, true) then
      return i - 1
    end
  end
  return nil
end

local function fullgraph_diagnostics(bufnr)
  local result = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.source == "fullgraph" then
      table.insert(result, d)
    end
  end
  table.sort(result, function(a, b)
    return a.lnum < b.lnum or (a.lnum == b.lnum and a.col < b.col)
  end)
  return result
end

local function codes_of(diags)
  local codes = {}
  for _, d in ipairs(diags) do
    table.insert(codes, tostring(d.code))
  end
  return table.concat(codes, ",")
end

-- LSP diagnostics (as the server sent them) on a line, for the code action context.
local function lsp_diagnostics_on(bufnr, lnum)
  return vim.lsp.diagnostic.get_line_diagnostics(bufnr, lnum)
end

local function request(bufnr, method, params)
  local responses, err = vim.lsp.buf_request_sync(bufnr, method, params, 15000)
  if not responses then
    return nil, err
  end
  for _, r in pairs(responses) do
    if r.err then
      return nil, vim.inspect(r.err)
    end
    return r.result
  end
  return nil, "no response"
end

local function code_actions(bufnr, lnum, only)
  local line = vim.api.nvim_buf_get_lines(bufnr, lnum, lnum + 1, false)[1]
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = { start = { line = lnum, character = 0 }, ["end"] = { line = lnum, character = #line } },
    context = { diagnostics = only and {} or lsp_diagnostics_on(bufnr, lnum), only = only },
  }
  return request(bufnr, "textDocument/codeAction", params) or {}
end

vim.api.nvim_create_autocmd("VimEnter", {
  callback = function()
    local bufnr = vim.api.nvim_get_current_buf()
    local published = 0
    local client_id = vim.lsp.start_client({
      name = "fullgraph",
      cmd = { py, "-m", "fullgraph", "lsp" },
      root_dir = vim.fn.getcwd(),
      handlers = {
        ["textDocument/publishDiagnostics"] = function(err, result, ctx, config)
          vim.lsp.diagnostic.on_publish_diagnostics(err, result, ctx, config)
          if result and result.uri == vim.uri_from_bufnr(bufnr) then
            published = published + 1
          end
        end,
      },
    })
    if not check(client_id ~= nil, "started `" .. py .. " -m fullgraph lsp`") then
      return finish()
    end
    vim.lsp.buf_attach_client(bufnr, client_id)
    local client = vim.lsp.get_client_by_id(client_id)

    -- 1. diagnostics: every graph break of the model, with byte columns right on the CJK/emoji line
    local ok = vim.wait(timeout_ms, function()
      return #fullgraph_diagnostics(bufnr) >= 5
    end, 50)
    check(ok, "diagnostics published within " .. timeout_ms / 1000 .. " s")
    check(client.offset_encoding == "utf-16", "position encoding utf-16 (got " .. tostring(client.offset_encoding) .. ")")
    local diags = fullgraph_diagnostics(bufnr)
    for _, d in ipairs(diags) do
      out(string.format("  diag %d:%d-%d:%d sev=%d %s %s", d.lnum, d.col, d.end_lnum, d.end_col, d.severity,
        tostring(d.code), d.message))
    end
    check(codes_of(diags) == "FG101,FG102,FG301,FG201,FG101", "codes in order (got " .. codes_of(diags) .. ")")
    local all_errors = #diags > 0
    for _, d in ipairs(diags) do
      all_errors = all_errors and d.severity == vim.diagnostic.severity.ERROR
    end
    check(all_errors, "findings under fullgraph=True are errors")
    local emoji_lnum = find_line(bufnr, '"温度 🔥"; print(')
    local emoji_line = vim.api.nvim_buf_get_lines(bufnr, emoji_lnum, emoji_lnum + 1, false)[1]
    local print_byte = emoji_line:find("print(", 1, true) - 1
    local on_emoji = nil
    for _, d in ipairs(diags) do
      if d.lnum == emoji_lnum then
        on_emoji = d
      end
    end
    check(on_emoji ~= nil and on_emoji.col == print_byte,
      string.format("emoji-line finding at byte column %d (got %s)", print_byte, on_emoji and on_emoji.col or "none"))
    local first = diags[1] or {}
    local lsp = (first.user_data or {}).lsp or {}
    check(lsp.codeDescription ~= nil and tostring(lsp.codeDescription.href):match("^https://") ~= nil,
      "codeDescription.href links the rule docs")
    check(lsp.relatedInformation ~= nil and #lsp.relatedInformation >= 1, "relatedInformation points at the compiled root")

    -- 2. hover on the print in the helper: rule text and the call path
    local report_lnum = find_line(bufnr, 'print("mean:"')
    local hover = request(bufnr, "textDocument/hover", {
      textDocument = { uri = vim.uri_from_bufnr(bufnr) },
      position = { line = report_lnum, character = 4 },
    })
    local htext = hover and hover.contents and (hover.contents.value or vim.inspect(hover.contents)) or ""
    out("  hover: " .. htext:sub(1, 200):gsub("\n", " | "))
    check(htext:find("FG101", 1, true) ~= nil, "hover names the rule")
    check(htext:find("Reached from", 1, true) ~= nil and htext:find("report", 1, true) ~= nil,
      "hover shows the call path it is reached from")

    -- 3. quick fix on logger.info: offered, applied, and the finding goes away
    local logger_lnum = find_line(bufnr, 'logger.info("forward done")')
    local actions = code_actions(bufnr, logger_lnum)
    local guard, disable
    for _, a in ipairs(actions) do
      out("  action: " .. a.title)
      if a.title:find("^fullgraph %(FG102%): Skip `logger%.info%(") then
        guard = a
      end
      if a.title == "fullgraph (FG102): Disable FG102 for this line" then
        disable = a
      end
    end
    check(guard ~= nil and guard.edit ~= nil, "quick fix `fullgraph (FG102): Skip ... when compiled` offered")
    check(disable ~= nil, "quick fix `fullgraph (FG102): Disable FG102 for this line` offered")
    if guard and guard.edit then
      local before = published
      vim.lsp.util.apply_workspace_edit(guard.edit, client.offset_encoding)
      local guarded = vim.api.nvim_buf_get_lines(bufnr, logger_lnum, logger_lnum + 2, false)
      check(guarded[1]:match("^%s+if not torch%.compiler%.is_compiling%(%):$") ~= nil
        and guarded[2]:match('^%s+logger%.info%("forward done"%)$') ~= nil,
        "logger.info is now guarded by `if not torch.compiler.is_compiling():`")
      vim.wait(timeout_ms, function()
        return published > before and codes_of(fullgraph_diagnostics(bufnr)) == "FG101,FG301,FG201,FG101"
      end, 50)
      check(codes_of(fullgraph_diagnostics(bufnr)) == "FG101,FG301,FG201,FG101",
        "FG102 gone after the fix (now " .. codes_of(fullgraph_diagnostics(bufnr)) .. ")")
    end

    -- 4. source.fixAll.fullgraph: removes the explicit graph_break(), and only the safe fixes are applied
    local fix_all = nil
    for _, a in ipairs(code_actions(bufnr, 0, { "source.fixAll.fullgraph" })) do
      if a.kind == "source.fixAll.fullgraph" then
        fix_all = a
      end
    end
    if check(fix_all ~= nil and fix_all.edit ~= nil, "source.fixAll.fullgraph offered") then
      vim.lsp.util.apply_workspace_edit(fix_all.edit, client.offset_encoding)
      local text = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n")
      check(text:find("graph_break()", 1, true) == nil, "fix-all removed torch._dynamo.graph_break()")
      check(text:find("if x.sum() > 0:", 1, true) ~= nil, "fix-all left the data-dependent `if` (no safe fix)")
      check(text:find("fullgraph: ignore", 1, true) == nil,
        "fix-all added no `# fullgraph: ignore` comments (suppressing is not fixing)")
    end

    vim.lsp.stop_client(client_id)
    vim.wait(5000, function()
      return vim.lsp.client_is_stopped(client_id)
    end, 50)
    finish()
  end,
})
