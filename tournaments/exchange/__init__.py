"""Files in and out of the service (数据交换): registration files read into entries
(:mod:`tournaments.exchange.imports`: CSV in the encodings Chinese spreadsheets write, XLSX,
a pasted list), an event's records written out (:mod:`tournaments.exchange.exports`: the
sheets, the one CSV writer with its formula guard, XLSX), and the formats an event's hand-over
is offered in (:mod:`tournaments.exchange.formats`: a federation's own format is registered
there)."""
