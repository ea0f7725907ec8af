BEGIN EXCLUSIVE;
INSERT INTO notes(body) VALUES ('hello from thread seven')
UPDATE notes SET body='changed' WHERE id=1
COMMIT;
SELECT count(*) FROM notes
INSERT INTO missing_table VALUES (1)
